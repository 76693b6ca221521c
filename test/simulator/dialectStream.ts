import { estimateTokens, planStream, splitText, type ReplyPlan, type StreamPlan, type Usage } from './chatReply.ts';
import type { Dialect, StreamDialect } from './dialect.ts';
import { relayThinkingPieceFields, relayThinkingSignatureDelta } from './relayThinking.ts';
import { wordedUsage, type UsageWording } from './usageWording.ts';

/**
 * A streamed reply as a dialect's gateway sends it: reasoning deltas before the answer, usage
 * where the dialect puts it, and the SSE framing (event names, keep-alive comments, end marker).
 * Pure: the writer in stream.ts only sends what this decides.
 */

export interface DialectReply {
  plan: ReplyPlan;
  /** A reasoning model's thinking, streamed before the answer; null for other models. */
  reasoning: string | null;
  /** How the gateway words the usage; OpenAI's when not said. */
  usageWording?: UsageWording;
  /**
   * A relay that signs Claude's thinking (Dialect.relaysClaudeThinking): its blocks stream beside the
   * thinking, signed for the model the request named (the answer may name a dated snapshot of it).
   */
  thinkingRelay?: { dialect: Dialect; requestedModel: string };
}

/** Usage with the reasoning counted as completion tokens, as reasoning models bill it. */
export function usageWithReasoning(usage: Usage | null, reasoning: string | null): Usage | null {
  if (usage === null || reasoning === null) return usage;
  const reasoningTokens = estimateTokens(reasoning.length);
  const completionTokens = usage.completion_tokens + reasoningTokens;
  return { ...usage, completion_tokens: completionTokens, total_tokens: usage.prompt_tokens + completionTokens, reasoningTokens };
}

/** The non-streaming body's message gains the reasoning under the dialect's field name, and `besides` (a relay's signed blocks). */
export function withReasoning(
  body: object,
  reasoning: string | null,
  field: StreamDialect['reasoningField'],
  besides: object = {},
): object {
  if (reasoning === null) return body;
  const typed = body as { choices: Array<{ message: Record<string, unknown> }> };
  const message = (choice: { message: Record<string, unknown> }) => ({ ...choice.message, [field]: reasoning, ...besides });
  return { ...typed, choices: typed.choices.map((choice) => ({ ...choice, message: message(choice) })) };
}

type Chunk = Record<string, unknown> & { choices: unknown[] };

export function planDialectStream(
  reply: DialectReply,
  pieceCount: number,
  includeUsage: boolean,
  dialect: StreamDialect,
  pieceChars?: readonly number[],
): StreamPlan {
  const base = planStream(reply.plan, pieceCount, false, pieceChars, dialect.toolCallNames);
  const envelope = { ...(base.head as Chunk), choices: [] };
  const relay = reply.thinkingRelay;
  const reasoningDelta = (delta: object): object => ({ ...envelope, choices: [{ index: 0, delta, finish_reason: null }] });
  const signatureDelta =
    reply.reasoning === null || relay === undefined
      ? null
      : relayThinkingSignatureDelta(relay.dialect, relay.requestedModel, reply.reasoning);
  const reasoningDeltas =
    reply.reasoning === null
      ? []
      : [
          ...splitText(reply.reasoning, pieceCount).map((piece) =>
            reasoningDelta({
              [dialect.reasoningField]: piece,
              ...(relay === undefined ? {} : relayThinkingPieceFields(relay.dialect, piece)),
            }),
          ),
          ...(signatureDelta === null ? [] : [reasoningDelta(signatureDelta)]),
        ];
  const deltas = [...reasoningDeltas, ...base.deltas];
  const [finish] = base.tail as [Chunk];
  const planned = reply.plan.usage;
  if (planned === null || !(includeUsage || dialect.usageWithoutAsking)) return { head: base.head, deltas, tail: [finish] };

  const word = (counts: Usage) => wordedUsage(counts, reply.usageWording ?? 'openai');
  const usage = word(planned);
  const usageChunk = { ...envelope, usage };
  switch (dialect.usagePlacement) {
    case 'afterFinish':
      return { head: base.head, deltas, tail: [finish, usageChunk] };
    case 'beforeFinish':
      return { head: base.head, deltas, tail: [usageChunk, finish] };
    case 'inFinish':
      return { head: base.head, deltas, tail: [{ ...finish, usage }] };
    case 'everyChunk':
      return withRunningUsage(base.head, deltas, finish, planned, word);
    case 'afterFinishWithChoice':
      return { head: base.head, deltas, tail: [finish, { ...usageChunk, choices: [{ index: 0, delta: {}, finish_reason: null }] }] };
  }
}

/** Every chunk carries the usage so far: completion tokens grow with the chunks, the last one holds the total. */
function withRunningUsage(head: object, deltas: object[], finish: Chunk, total: Usage, word: (counts: Usage) => object): StreamPlan {
  const chunks = [head, ...deltas];
  const withUsage = chunks.map((chunk, index) => {
    const completionTokens = Math.floor((total.completion_tokens * index) / chunks.length);
    const running = {
      prompt_tokens: total.prompt_tokens,
      completion_tokens: completionTokens,
      total_tokens: total.prompt_tokens + completionTokens,
    };
    return { ...chunk, usage: word(running) };
  });
  const [first, ...rest] = withUsage as [object, ...object[]];
  return { head: first, deltas: rest, tail: [{ ...finish, usage: word(total) }] };
}

/** How the writer frames what it sends. */
export interface StreamFraming {
  event(data: object | string): string;
  /** A full comment line with its blank line, or null. */
  comment: string | null;
  errorEvent: string;
  sendDone: boolean;
  doneAfterError: boolean;
}

export function framingFor(dialect: StreamDialect, errorData: object): StreamFraming {
  const frame = (name: string, data: object | string) =>
    `${dialect.eventNames ? `event: ${name}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
  return {
    event: (data) => frame('message', data),
    comment: dialect.keepAliveComment === null ? null : `${dialect.keepAliveComment}\n\n`,
    errorEvent: frame('error', errorData),
    sendDone: dialect.sendDone,
    doneAfterError: dialect.doneAfterError,
  };
}
