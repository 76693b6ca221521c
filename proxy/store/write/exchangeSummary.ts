/**
 * A row's one-line summary and its agent session, read on the log thread from what the request
 * carried: the forwarding path never parses a body for them.
 */

/** Long enough to recognise a prompt in a list row, short enough for the row to stay cheap. */
export const SUMMARY_MAX_CHARS = 120;

/**
 * Headers agents name their session with: Claude Code sends x-claude-code-session-id; Codex sends
 * session-id and thread-id (codex-rs's model client). The first one present wins.
 */
export const SESSION_HEADER_NAMES = ['x-claude-code-session-id', 'session-id', 'thread-id'] as const;

export function agentSessionIdOf(headers: Record<string, string>): string | null {
  const byName = new Map(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  for (const name of SESSION_HEADER_NAMES) {
    const value = byName.get(name)?.trim();
    if (value) return value.slice(0, SUMMARY_MAX_CHARS);
  }
  return null;
}

type Json = unknown;
const isRecord = (value: Json): value is Record<string, Json> => typeof value === 'object' && value !== null && !Array.isArray(value);

function parse(text: string | null): Json {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** Text of a message's content: a string, or the text parts of a list (chat, Messages and Responses shapes). */
function contentText(content: Json): string | null {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return null;
  const texts = content.flatMap((part) =>
    isRecord(part) && typeof part.text === 'string' && (part.type === 'text' || part.type === 'input_text' || part.type === 'output_text')
      ? [part.text]
      : [],
  );
  return texts.length > 0 ? texts.join('\n') : null;
}

/** The last user message's text of a chat, Messages or Responses request. */
function lastUserText(request: Json): string | null {
  if (!isRecord(request)) return null;
  if (typeof request.input === 'string') return request.input;
  const messages = Array.isArray(request.messages) ? request.messages : Array.isArray(request.input) ? request.input : [];
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index];
    if (!isRecord(message) || message.role !== 'user') continue;
    const text = contentText(message.content);
    if (text !== null && text.trim() !== '') return text;
  }
  return null;
}

/** The answer's text of a non-streamed chat, Messages or Responses answer. */
function answerText(response: Json): string | null {
  if (!isRecord(response)) return null;
  if (Array.isArray(response.choices) && isRecord(response.choices[0]) && isRecord(response.choices[0].message))
    return contentText(response.choices[0].message.content);
  if (Array.isArray(response.content)) return contentText(response.content);
  if (Array.isArray(response.output))
    return response.output.map((item) => (isRecord(item) ? contentText(item.content) : null)).find((text) => text) ?? null;
  return null;
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

/** The prompt's first line, or the answer's when the request has no user text (or its body was cut). */
export function exchangeSummary(parts: {
  requestBody: string | null;
  responseBody: string | null;
  streamText: string | null;
}): string | null {
  const prompt = lastUserText(parse(parts.requestBody));
  const text = prompt ?? parts.streamText ?? answerText(parse(parts.responseBody));
  return text === null ? null : firstLine(text);
}
