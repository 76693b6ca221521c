/**
 * A chat or Messages request (and its answer) as the turns a person reads: who said what, which
 * tools were called with which arguments, and what they returned. Pure; the detail renders it.
 */

export type TurnRole = 'system' | 'user' | 'assistant' | 'tool';

/** `omittedChars`: how much of a long text (a file a tool read) was cut from what the conversation shows. */
export type TurnPart =
  | { kind: 'text'; text: string; omittedChars?: number }
  | { kind: 'tool_call'; name: string; text: string; omittedChars?: number }
  | { kind: 'tool_result'; name: string | null; text: string; omittedChars?: number }
  | { kind: 'image' };

/**
 * A part shows at most this much of its text: an agent's history holds whole files as tool results,
 * and the body panel below shows them in full. The sessions timeline cuts at the same length.
 */
export const PART_TEXT_LIMIT_CHARS = 4_000;

export interface Turn {
  role: TurnRole;
  parts: TurnPart[];
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const asText = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value, null, 2));
const roleOf = (value: unknown): TurnRole =>
  value === 'system' || value === 'developer' ? 'system' : value === 'assistant' ? 'assistant' : value === 'tool' ? 'tool' : 'user';

/** Content as either protocol sends it: a string, or a list of typed blocks. */
function partsOf(content: unknown): TurnPart[] {
  if (typeof content === 'string') return content === '' ? [] : [{ kind: 'text', text: content }];
  if (!Array.isArray(content)) return content === undefined || content === null ? [] : [{ kind: 'text', text: asText(content) }];
  const parts: TurnPart[] = [];
  for (const block of content) {
    if (typeof block === 'string') parts.push({ kind: 'text', text: block });
    else if (!isObject(block)) continue;
    else if (typeof block.text === 'string') parts.push({ kind: 'text', text: block.text });
    else if (block.type === 'image_url' || block.type === 'image' || block.type === 'input_image') parts.push({ kind: 'image' });
    // Anthropic: the assistant asks for a tool, the user's next turn carries its result.
    else if (block.type === 'tool_use') parts.push({ kind: 'tool_call', name: String(block.name ?? '?'), text: asText(block.input ?? {}) });
    else if (block.type === 'tool_result')
      parts.push({
        kind: 'tool_result',
        name: typeof block.tool_use_id === 'string' ? block.tool_use_id : null,
        text: textOfResult(block.content),
      });
    else parts.push({ kind: 'text', text: asText(block) });
  }
  return parts;
}

function textOfResult(content: unknown): string {
  if (Array.isArray(content))
    return partsOf(content)
      .map((part) => ('text' in part ? part.text : '[image]'))
      .join('\n');
  return asText(content ?? '');
}

/** OpenAI: tool calls ride on the assistant message, results come back as role "tool". */
function toolCallsOf(message: Json): TurnPart[] {
  if (!Array.isArray(message.tool_calls)) return [];
  return message.tool_calls.filter(isObject).map((call) => {
    const fn = isObject(call.function) ? call.function : {};
    return { kind: 'tool_call' as const, name: String(fn.name ?? '?'), text: prettyArguments(fn.arguments) };
  });
}

function prettyArguments(value: unknown): string {
  if (typeof value !== 'string') return asText(value ?? '');
  try {
    return JSON.stringify(JSON.parse(value), null, 2);
  } catch {
    return value;
  }
}

function turnOf(message: Json): Turn {
  const role = roleOf(message.role);
  if (role === 'tool') {
    const name = typeof message.tool_call_id === 'string' ? message.tool_call_id : null;
    return { role, parts: [{ kind: 'tool_result', name, text: textOfResult(message.content) }] };
  }
  return { role, parts: [...partsOf(message.content), ...toolCallsOf(message)] };
}

function cutPart(part: TurnPart): TurnPart {
  if (part.kind === 'image' || part.text.length <= PART_TEXT_LIMIT_CHARS) return part;
  return { ...part, text: part.text.slice(0, PART_TEXT_LIMIT_CHARS), omittedChars: part.text.length - PART_TEXT_LIMIT_CHARS };
}

/** The turns a request body asks with (chat `messages`, Messages `system` + `messages`, Responses `instructions` + `input`); null when it is neither. */
export function requestTurns(bodyText: string): Turn[] | null {
  let body: unknown;
  try {
    body = JSON.parse(bodyText);
  } catch {
    return null;
  }
  if (!isObject(body)) return null;
  const turns: Turn[] = [];
  const system = body.system ?? body.instructions;
  if (system !== undefined) turns.push({ role: 'system', parts: partsOf(system) });
  const messages = Array.isArray(body.messages)
    ? body.messages
    : typeof body.input === 'string'
      ? [{ role: 'user', content: body.input }]
      : body.input;
  if (!Array.isArray(messages) && turns.length === 0) return null;
  if (Array.isArray(messages)) for (const message of messages) if (isObject(message)) turns.push(turnOf(message));
  return turns.map((turn) => ({ ...turn, parts: turn.parts.map(cutPart) }));
}

/** The answer in a (non-streamed) response body: the chat choice's message, or the Messages content; null when there is none. */
export function responseTurn(bodyText: string): Turn | null {
  let body: unknown;
  try {
    body = JSON.parse(bodyText);
  } catch {
    return null;
  }
  if (!isObject(body)) return null;
  const choice = Array.isArray(body.choices) ? body.choices.find(isObject) : undefined;
  if (choice && isObject(choice.message)) return { ...turnOf(choice.message), role: 'assistant' };
  if (body.type === 'message' && Array.isArray(body.content)) return { role: 'assistant', parts: partsOf(body.content) };
  return null;
}
