import { hash } from 'node:crypto';
import { isRecord } from '../../core/isRecord.ts';
import { contentText, messagesOf } from '../../protocols/messageText.ts';
import { agentSessionIdOf } from '../../core/agentSessionHeader.ts';

/**
 * Which agent session a request belongs to. Claude Code, Codex and opencode name theirs in a header
 * (agentSessionIdOf); any other tool resends its whole conversation each turn, so the turns of one
 * conversation share their opening: the system text and the first user message. Those, with the
 * client token's name, are hashed into the session id. Read on the log thread, never while forwarding;
 * a body cut at the capture limit does not parse, and its request gets no derived session.
 */

/** Marks a session id Airlock derived, as against one an agent sent. */
export const DERIVED_SESSION_PREFIX = 'conv-';
/** 96 bits of the hash: collisions between conversations are out of reach, and the id stays short. */
const DERIVED_ID_HEX_CHARS = 24;

type Json = unknown;

/**
 * Any block carrying text counts ('anyBlock'): the id must not change between versions. Markers that
 * move between turns (Anthropic's cache_control) are not text, so the same opening hashes the same.
 */
const textOf = (content: Json): string => contentText(content, 'anyBlock');

/**
 * The conversation's opening as texts: instructions (Messages' `system`, Responses' `instructions`,
 * chat's system and developer messages before the first user message) and the first user message.
 * null when the request has no user message with text: nothing marks a conversation then.
 */
export function conversationOpening(request: Json): string[] | null {
  const messages = messagesOf(request);
  if (!isRecord(request) || messages === null) return null;
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
  // One-shot hash: a Hash object per row cost the log thread more than the hashing.
  const digest = hash('sha256', JSON.stringify([clientName ?? '', ...opening]), 'hex');
  return `${DERIVED_SESSION_PREFIX}${digest.slice(0, DERIVED_ID_HEX_CHARS)}`;
}

/** The agent's own session header when it sent one, else the session derived from the conversation (`request`: the parsed body). */
export function sessionIdOfRequest(parts: { headers: Record<string, string>; clientName: string | null; request: Json }): string | null {
  return agentSessionIdOf(parts.headers) ?? derivedSessionId(parts.clientName, parts.request);
}
