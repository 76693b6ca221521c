import { createHash } from 'node:crypto';
import { agentSessionIdOf } from './exchangeSummary.ts';

/**
 * Which agent session a request belongs to. Claude Code and Codex name theirs in a header
 * (agentSessionIdOf); any other tool resends its whole conversation each turn, so the turns of one
 * conversation share their opening: the system text and the first user message. Those, with the
 * client token's name, are hashed into the session id. Read on the log thread, never while forwarding.
 */

/** Marks a session id Airlock derived, as against one an agent sent. */
export const DERIVED_SESSION_PREFIX = 'conv-';
/** 96 bits of the hash: collisions between conversations are out of reach, and the id stays short. */
const DERIVED_ID_HEX_CHARS = 24;

type Json = unknown;
const isRecord = (value: Json): value is Record<string, Json> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The text parts of a content value, in order: a string, or a list of blocks (chat, Messages and
 * Responses shapes). Markers that move between turns (Anthropic's cache_control) are not text and
 * are left out, so the same opening hashes the same on every turn.
 */
function textOf(content: Json): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => (typeof part === 'string' ? part : isRecord(part) && typeof part.text === 'string' ? part.text : ''))
    .filter((text) => text !== '')
    .join('\n');
}

/** The messages of a chat or Messages request, or the input items of a Responses request. */
function messagesOf(request: Record<string, Json>): Json[] | null {
  if (Array.isArray(request.messages)) return request.messages;
  if (Array.isArray(request.input)) return request.input;
  if (typeof request.input === 'string') return [{ role: 'user', content: request.input }];
  return null;
}

/**
 * The conversation's opening as texts: instructions (Messages' `system`, Responses' `instructions`,
 * chat's system and developer messages before the first user message) and the first user message.
 * null when the request has no user message with text: nothing marks a conversation then.
 */
export function conversationOpening(request: Json): string[] | null {
  if (!isRecord(request)) return null;
  const messages = messagesOf(request);
  if (messages === null) return null;
  const opening: string[] = [];
  const instructions = textOf(request.system ?? request.instructions);
  if (instructions !== '') opening.push(`system:${instructions}`);
  for (const message of messages) {
    if (!isRecord(message)) continue;
    const text = textOf(message.content);
    if (message.role === 'system' || message.role === 'developer') {
      if (text !== '') opening.push(`system:${text}`);
    } else if (message.role === 'user' && text.trim() !== '') {
      opening.push(`user:${text}`);
      return opening;
    }
  }
  return null;
}

/** `conv-` and a hash of the client token's name and the conversation's opening; null without an opening. */
export function derivedSessionId(clientName: string | null, request: Json): string | null {
  const opening = conversationOpening(request);
  if (opening === null) return null;
  const digest = createHash('sha256')
    .update(JSON.stringify([clientName ?? '', ...opening]))
    .digest('hex');
  return `${DERIVED_SESSION_PREFIX}${digest.slice(0, DERIVED_ID_HEX_CHARS)}`;
}

function parse(text: string | null): Json {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    // A body cut at the capture limit does not parse: the request gets no derived session.
    return null;
  }
}

/** The agent's own session header when it sent one, else the session derived from the conversation. */
export function sessionIdOfRequest(parts: {
  headers: Record<string, string>;
  clientName: string | null;
  requestBody: string | null;
}): string | null {
  return agentSessionIdOf(parts.headers) ?? derivedSessionId(parts.clientName, parse(parts.requestBody));
}
