import type { ChatRequest } from './chatRequest.ts';
import type { ToolCallNames } from './dialect.ts';
import type { Fault, ScriptedToolCall } from './types.ts';
import { wordedUsage, type UsageWording } from './usageWording.ts';

type ReplyFault = Extract<Fault, { kind: 'reply' }>;

/** The counts a reply is billed at; a dialect words them on the wire (usageWording.ts). */
export interface Usage {
  prompt_tokens: number;
  /** The thinking included, as reasoning models bill it. */
  completion_tokens: number;
  total_tokens: number;
  /** Of `prompt_tokens`, those read from the prompt cache. */
  cachedTokens?: number;
  /** Of `completion_tokens`, the model's thinking. */
  reasoningTokens?: number;
}

export interface ToolCallPlan extends ScriptedToolCall {
  id: string;
  /** Gemini's `extra_content.google.thought_signature` (thoughtSignatures.ts). */
  thoughtSignature?: string;
}

/** Everything a reply says, decided once so the JSON and the stream forms agree. */
export interface ReplyPlan {
  id: string;
  created: number;
  model: string;
  content: string | null;
  toolCalls: ToolCallPlan[];
  finishReason: 'stop' | 'tool_calls';
  /** The stop sequence the content was cut at, as the choice's `stop_reason` names it (null: not named). */
  matchedStop: string | null;
  usage: Usage | null;
}

const CHARS_PER_TOKEN = 4;
const ECHO_LENGTH_CHARS = 80;

/** Rough token count (~4 characters a token), never below 1: gateways always bill something. */
export function estimateTokens(chars: number): number {
  return Math.max(1, Math.ceil(chars / CHARS_PER_TOKEN));
}

export function defaultReplyContent(lastUserText: string): string {
  const echo = lastUserText.slice(0, ECHO_LENGTH_CHARS);
  return echo === '' ? 'Simulated reply.' : `Simulated reply to: ${echo}`;
}

export interface ReplyIdentity {
  /** Unique per simulator, e.g. 'sim000001'. */
  sequence: string;
  createdS: number;
}

export function planReply(request: ChatRequest, identity: ReplyIdentity, reply?: ReplyFault): ReplyPlan {
  const forcedCall = request.forcedToolName ? [{ name: request.forcedToolName, arguments: '{}' }] : [];
  const scriptedCalls = request.hasTools ? (reply?.toolCalls ?? forcedCall) : [];
  const toolCalls = scriptedCalls.map((call, index) => ({ ...call, id: `call_${identity.sequence}_${index}` }));
  const fullContent = reply?.content ?? (toolCalls.length > 0 ? null : defaultReplyContent(request.lastUserText));
  const { content, matchedStop } = cutAtStop(fullContent, request.stop);
  const completionChars = (content?.length ?? 0) + toolCalls.reduce((sum, call) => sum + call.name.length + call.arguments.length, 0);
  const promptTokens = estimateTokens(request.promptChars);
  const completionTokens = estimateTokens(completionChars);
  return {
    id: `chatcmpl-${identity.sequence}`,
    created: identity.createdS,
    model: reply?.model ?? request.model,
    content,
    toolCalls,
    finishReason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
    matchedStop,
    usage: reply?.usage === false ? null : usageOf(promptTokens, completionTokens, reply?.cachedTokens),
  };
}

/** A model stops before the first stop sequence it would write; the sequence is not sent. */
function cutAtStop(content: string | null, stop: readonly string[]): { content: string | null; matchedStop: string | null } {
  let cut: { at: number; sequence: string } | null = null;
  for (const sequence of stop) {
    const at = content?.indexOf(sequence) ?? -1;
    if (at !== -1 && (cut === null || at < cut.at)) cut = { at, sequence };
  }
  return cut === null ? { content, matchedStop: null } : { content: content!.slice(0, cut.at), matchedStop: cut.sequence };
}

function usageOf(promptTokens: number, completionTokens: number, cachedTokens: number | undefined): Usage {
  const usage: Usage = { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
  if (cachedTokens !== undefined) usage.cachedTokens = Math.min(cachedTokens, promptTokens);
  return usage;
}

export function completionBody(plan: ReplyPlan, wording: UsageWording = 'openai'): object {
  const message: Record<string, unknown> = { role: 'assistant', content: plan.content };
  if (plan.toolCalls.length > 0) {
    message.tool_calls = plan.toolCalls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
      ...signatureField(call),
    }));
  }
  const body: Record<string, unknown> = {
    id: plan.id,
    object: 'chat.completion',
    created: plan.created,
    model: plan.model,
    choices: [{ index: 0, message, finish_reason: plan.finishReason, ...stopReasonField(plan) }],
  };
  if (plan.usage !== null) body.usage = wordedUsage(plan.usage, wording);
  return body;
}

function stopReasonField(plan: ReplyPlan): object {
  return plan.matchedStop === null ? {} : { stop_reason: plan.matchedStop };
}

/** Splits text into at most `count` non-empty pieces at code point boundaries. */
export function splitText(text: string, count: number): string[] {
  const codePoints = Array.from(text);
  const pieceCount = Math.max(1, Math.min(count, codePoints.length));
  const pieces: string[] = [];
  for (let index = 0; index < pieceCount; index += 1) {
    const start = Math.floor((index * codePoints.length) / pieceCount);
    const end = Math.floor(((index + 1) * codePoints.length) / pieceCount);
    pieces.push(codePoints.slice(start, end).join(''));
  }
  return pieces;
}

/** Splits text into pieces of these many code points, in turn (the last piece may be shorter). */
export function splitBySizes(text: string, sizes: readonly number[]): string[] {
  const codePoints = Array.from(text);
  const pieces: string[] = [];
  for (let start = 0, turn = 0; start < codePoints.length; turn += 1) {
    const size = Math.max(1, sizes[turn % sizes.length] ?? 1);
    pieces.push(codePoints.slice(start, start + size).join(''));
    start += size;
  }
  return pieces;
}

/** A stream as three parts: the role chunk, the countable delta chunks, and the closing chunks. */
export interface StreamPlan {
  head: object;
  deltas: object[];
  tail: object[];
}

/**
 * `pieceChars` sizes the content deltas (in turn) instead of cutting the content into `pieceCount` pieces;
 * `toolCallNames` is how the dialect sends each call's name (dialect.ts).
 */
export function planStream(
  plan: ReplyPlan,
  pieceCount: number,
  includeUsage: boolean,
  pieceChars?: readonly number[],
  toolCallNames: ToolCallNames = 'firstDelta',
): StreamPlan {
  const chunk = (choices: object[], extra: object = {}): object => ({
    id: plan.id,
    object: 'chat.completion.chunk',
    created: plan.created,
    model: plan.model,
    choices,
    ...extra,
  });
  const deltaChunk = (delta: object, finishReason: string | null = null): object =>
    chunk([{ index: 0, delta, finish_reason: finishReason }]);

  const deltas: object[] = [];
  if (plan.content !== null) {
    const pieces = pieceChars ? splitBySizes(plan.content, pieceChars) : splitText(plan.content, pieceCount);
    for (const piece of pieces) deltas.push(deltaChunk({ content: piece }));
  }
  plan.toolCalls.forEach((call, index) => {
    const [firstName, ...laterNames] = toolCallNames === 'inPieces' ? splitText(call.name, 2) : [call.name];
    deltas.push(
      deltaChunk({
        tool_calls: [{ index, id: call.id, type: 'function', function: { name: firstName, arguments: '' }, ...signatureField(call) }],
      }),
    );
    for (const name of laterNames) deltas.push(deltaChunk({ tool_calls: [{ index, function: { name } }] }));
    const repeatedName = toolCallNames === 'everyDelta' ? { name: call.name } : {};
    for (const piece of splitText(call.arguments, pieceCount)) {
      deltas.push(deltaChunk({ tool_calls: [{ index, function: { ...repeatedName, arguments: piece } }] }));
    }
  });
  const tail = [chunk([{ index: 0, delta: {}, finish_reason: plan.finishReason, ...stopReasonField(plan) }])];
  if (includeUsage && plan.usage !== null) tail.push(chunk([], { usage: wordedUsage(plan.usage, 'openai') }));
  return { head: deltaChunk({ role: 'assistant', content: plan.content === null ? null : '' }), deltas, tail };
}

function signatureField(call: ToolCallPlan): object {
  return call.thoughtSignature === undefined ? {} : { extra_content: { google: { thought_signature: call.thoughtSignature } } };
}
