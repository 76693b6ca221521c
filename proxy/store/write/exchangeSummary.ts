import { answerTexts, lastUserText } from '../../protocols/messageText.ts';

/**
 * A row's one-line summary, read on the log thread from what the request
 * carried: the forwarding path never parses a body for it.
 */

/** Long enough to recognise a prompt in a list row, short enough for the row to stay cheap. */
export const SUMMARY_MAX_CHARS = 120;

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
