import { isRecord } from '../core/isRecord.ts';
import { redactedThinkingBytes, thinkingSignatureBytes } from './anthropic/encryptedThinking.ts';
/**
 * The text of a content value, a message and an answer in the three conversation shapes (chat
 * completions, Anthropic Messages, Responses), read from the body itself. Pure. One owner, so the
 * row summary, the derived agent session, replay's answer and the timeline read a body the same way.
 */

type Json = unknown;

/**
 * Which blocks of a list count as text:
 * - `textBlocks`: blocks typed as text (`text`, `input_text`, `output_text`) or untyped with a `text`;
 *   what a person wrote or read, for summaries and answers.
 * - `anyBlock`: also bare strings and any block carrying a `text`. The derived session id hashes
 *   this; narrowing it would re-key the sessions already stored.
 */
export type TextBlockRule = 'textBlocks' | 'anyBlock';

const TEXT_BLOCK_TYPES: ReadonlySet<Json> = new Set([undefined, 'text', 'input_text', 'output_text']);

function blockText(block: Json, rule: TextBlockRule): string | null {
  if (typeof block === 'string') return rule === 'anyBlock' ? block : null;
  if (!isRecord(block) || typeof block.text !== 'string') return null;
  return rule === 'anyBlock' || TEXT_BLOCK_TYPES.has(block.type) ? block.text : null;
}

/** The text parts of a content value, in order: a string, or the text blocks of a list. */
export function contentTexts(content: Json, rule: TextBlockRule): string[] {
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  return content.flatMap((block) => {
    const text = blockText(block, rule);
    return text === null ? [] : [text];
  });
}

/** A content value's non-empty text parts, one a line; '' when it has none. */
export function contentText(content: Json, rule: TextBlockRule): string {
  return contentTexts(content, rule)
    .filter((text) => text !== '')
    .join('\n');
}

/** The messages of a chat or Messages request, or the input items of a Responses request (a string input is one user message). */
export function messagesOf(request: Json): Json[] | null {
  if (!isRecord(request)) return null;
  if (Array.isArray(request.messages)) return request.messages;
  if (Array.isArray(request.input)) return request.input;
  if (typeof request.input === 'string') return [{ role: 'user', content: request.input }];
  return null;
}

/**
 * What a client writes into a user message for the model, not from the user: Claude Code's
 * `<system-reminder>` blocks, before the prompt and after tool results (anthropics/claude-code#52018).
 */
const CLIENT_REMINDER = /<system-reminder>[\s\S]*?<\/system-reminder>/g;

/**
 * The last user message's text of a chat, Messages or Responses request, without the reminders a
 * client added (CLIENT_REMINDER); null when none has other text.
 */
export function lastUserText(request: Json): string | null {
  const messages = messagesOf(request) ?? [];
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index];
    if (!isRecord(message) || message.role !== 'user') continue;
    const text = contentText(message.content, 'textBlocks').replace(CLIENT_REMINDER, '');
    if (text.trim() !== '') return text;
  }
  return null;
}

/**
 * The text parts of a whole (not streamed) answer, in order: chat's `choices[].message.content`
 * (legacy completions' `choices[].text`), Messages' `content[]` text blocks, Responses' `output[]`
 * message items. [] when it holds none.
 * Callers join them: a stream's text is its deltas run together, a summary wants lines.
 */
export function answerTexts(answer: Json): string[] {
  if (!isRecord(answer)) return [];
  const choices = Array.isArray(answer.choices) ? answer.choices : [];
  const output = Array.isArray(answer.output) ? answer.output : [];
  return [
    ...choices.flatMap((choice) => {
      if (!isRecord(choice)) return [];
      if (isRecord(choice.message)) return contentTexts(choice.message.content, 'textBlocks');
      return typeof choice.text === 'string' ? [choice.text] : [];
    }),
    ...(Array.isArray(answer.content) ? contentTexts(answer.content, 'textBlocks') : []),
    ...output.flatMap((item) => (isRecord(item) && item.type === 'message' ? contentTexts(item.content, 'textBlocks') : [])),
  ];
}

/** A tool call's input as the model wrote it: a string as it is, an object as its JSON. */
function writtenInput(value: Json): string[] {
  if (typeof value === 'string') return [value];
  return value === undefined || value === null ? [] : [JSON.stringify(value)];
}

/** A tool call as its model wrote it: its name, then its input (a chat answer's call counts `name + arguments` so). */
function writtenCall(name: Json, input: Json): string[] {
  const written = `${typeof name === 'string' ? name : ''}${writtenInput(input).join('')}`;
  return written === '' ? [] : [written];
}

/** A Responses message's refusal parts: a model that declines writes `{type: 'refusal', refusal}` instead of output_text. */
function refusalTexts(content: Json): string[] {
  if (!Array.isArray(content)) return [];
  return content.flatMap((part) => (isRecord(part) && part.type === 'refusal' && typeof part.refusal === 'string' ? [part.refusal] : []));
}

/**
 * What else than its text a whole Messages or Responses answer holds that its model wrote, billed
 * as output: Messages' thinking and tool_use names and inputs; Responses' reasoning (summary and text),
 * its refusals, its function and custom tool calls' names and inputs and its tool searches' arguments. For the estimate of an
 * answer without usage (chat's are read with its reply).
 */
export function answerOtherOutputTexts(answer: Json): string[] {
  if (!isRecord(answer)) return [];
  const content = Array.isArray(answer.content) ? answer.content : [];
  const output = Array.isArray(answer.output) ? answer.output : [];
  return [
    ...content.flatMap((block) => {
      if (!isRecord(block)) return [];
      if (block.type === 'thinking' && typeof block.thinking === 'string') return [block.thinking];
      return block.type === 'tool_use' || block.type === 'server_tool_use' ? writtenCall(block.name, block.input) : [];
    }),
    ...output.flatMap((item) => {
      if (!isRecord(item)) return [];
      if (item.type === 'reasoning') return [...contentTexts(item.summary, 'anyBlock'), ...contentTexts(item.content, 'anyBlock')];
      if (item.type === 'message') return refusalTexts(item.content);
      if (item.type === 'function_call') return writtenCall(item.name, item.arguments);
      if (item.type === 'tool_search_call') return writtenInput(item.arguments);
      return item.type === 'custom_tool_call' ? writtenCall(item.name, item.input) : [];
    }),
  ];
}

/** The bytes of what a whole answer's model wrote with no text to count (Messages' redacted thinking), for the same estimate. */
export function answerOpaqueOutputBytes(answer: Json): number {
  if (!isRecord(answer) || !Array.isArray(answer.content)) return 0;
  return answer.content.reduce((bytes: number, block: Json) => bytes + redactedThinkingBytes(block), 0);
}

/** A thinking block's visible thinking and the bytes of its signature, which on Claude 4 models holds the full thinking. */
export interface SignedThinking {
  visibleThinking: string;
  signatureBytes: number;
}

/** A whole Messages answer's signed thinking blocks, for the same estimate (the visible thinking is among answerOtherOutputTexts too). */
export function answerSignedThinking(answer: Json): SignedThinking[] {
  if (!isRecord(answer) || !Array.isArray(answer.content)) return [];
  return answer.content.flatMap((block: Json) => {
    if (!isRecord(block) || block.type !== 'thinking') return [];
    const signatureBytes = thinkingSignatureBytes(block.signature);
    return signatureBytes > 0 ? [{ visibleThinking: typeof block.thinking === 'string' ? block.thinking : '', signatureBytes }] : [];
  });
}
