import { answerTexts, lastUserText } from '../../protocols/messageText.ts';

/**
 * A row's one-line summary and its agent session, read on the log thread from what the request
 * carried: the forwarding path never parses a body for them.
 */

/** Long enough to recognise a prompt in a list row, short enough for the row to stay cheap. */
export const SUMMARY_MAX_CHARS = 120;

/**
 * Headers agents name their session with: Claude Code sends x-claude-code-session-id; Codex sends
 * session-id and thread-id (codex-rs's model client), and its earlier releases session_id
 * (codex-api's requests/headers.rs). The first one present wins.
 */
export const SESSION_HEADER_NAMES = ['x-claude-code-session-id', 'session-id', 'thread-id', 'session_id'] as const;

export function agentSessionIdOf(headers: Record<string, string>): string | null {
  // Read for every logged row: one pass over the headers, no lower-cased copy of them all.
  let found: string | null = null;
  let foundRank: number = SESSION_HEADER_NAMES.length;
  for (const name in headers) {
    const rank = SESSION_HEADER_NAMES.indexOf(name.toLowerCase() as (typeof SESSION_HEADER_NAMES)[number]);
    if (rank < 0 || rank >= foundRank) continue;
    const value = headers[name]?.trim();
    if (!value) continue;
    found = value;
    foundRank = rank;
  }
  return found === null ? null : found.slice(0, SUMMARY_MAX_CHARS);
}

type Json = unknown;

/** A logged body as JSON; null when there is none or it does not parse (a body cut at the capture limit). */
export function parseBody(text: string | null): Json {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** The first non-blank line, cut to SUMMARY_MAX_CHARS with an ellipsis. */
export function firstLine(text: string): string | null {
  const line = text
    .split('\n')
    .map((candidate) => candidate.trim())
    .find((candidate) => candidate !== '');
  if (line === undefined) return null;
  return line.length <= SUMMARY_MAX_CHARS ? line : `${line.slice(0, SUMMARY_MAX_CHARS - 1)}…`;
}

/**
 * The prompt's first line, or the answer's when the request has no user text (or its body was cut).
 * `request` is the parsed request body (parseBody): the log thread parses it once for this and the session.
 */
export function exchangeSummary(parts: { request: Json; responseBody: string | null; streamText: string | null }): string | null {
  const prompt = lastUserText(parts.request);
  const text = prompt ?? parts.streamText ?? answerTexts(parseBody(parts.responseBody)).join('\n');
  return firstLine(text);
}
