import { z } from 'zod';
import type { TokenUsage } from '../../contracts/usage.ts';

/**
 * Lenient readers for what a Chat Completions upstream sends back. Unknown fields are ignored;
 * only a shape that cannot carry a reply at all is refused.
 */

const usageSchema = z.object({
  prompt_tokens: z.number().nonnegative().optional(),
  completion_tokens: z.number().nonnegative().optional(),
  prompt_tokens_details: z.object({ cached_tokens: z.number().nonnegative().nullish() }).nullish(),
  completion_tokens_details: z.object({ reasoning_tokens: z.number().nonnegative().nullish() }).nullish(),
});

const toolCallDeltaSchema = z.object({
  index: z.number().int().nonnegative().nullish(),
  id: z.string().nullish(),
  function: z.object({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
});

const chunkSchema = z.object({
  choices: z
    .array(
      z.object({
        index: z.number().nullish(),
        delta: z.object({ content: z.string().nullish(), tool_calls: z.array(toolCallDeltaSchema).nullish() }).nullish(),
        finish_reason: z.string().nullish(),
      }),
    )
    .nullish(),
  usage: usageSchema.nullish(),
  error: z.unknown().optional(),
});

const completionSchema = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.string().nullish(),
          refusal: z.string().nullish(),
          tool_calls: z
            .array(z.object({ id: z.string(), function: z.object({ name: z.string(), arguments: z.string().nullish() }) }))
            .nullish(),
        }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
  usage: usageSchema.nullish(),
});

export interface ToolCallDelta {
  /** The upstream's `index`; null when the upstream omits it. */
  index: number | null;
  id: string | null;
  name: string | null;
  argumentsPiece: string | null;
}

export interface ChatChunkReading {
  textDelta: string | null;
  toolCallDeltas: ToolCallDelta[];
  finishReason: string | null;
  usage: TokenUsage | null;
  /** Set when the chunk is an upstream error event or not a readable chunk: the stream has failed. */
  errorMessage: string | null;
}

export interface ChatCompletionReading {
  text: string;
  toolCalls: { id: string; name: string; arguments: string }[];
  finishReason: string | null;
  usage: TokenUsage | null;
}

export function readChatUsage(usage: z.infer<typeof usageSchema> | null | undefined): TokenUsage | null {
  if (!usage) return null;
  const result: TokenUsage = { inputTokens: usage.prompt_tokens ?? 0, outputTokens: usage.completion_tokens ?? 0 };
  const cached = usage.prompt_tokens_details?.cached_tokens;
  const reasoning = usage.completion_tokens_details?.reasoning_tokens;
  if (typeof cached === 'number') result.cachedInputTokens = cached;
  if (typeof reasoning === 'number') result.reasoningTokens = reasoning;
  return result;
}

/** Only the first choice is read: the translated protocols have no `n`. */
export function readChatChunk(chunk: object): ChatChunkReading {
  const parsed = chunkSchema.safeParse(chunk);
  const empty: ChatChunkReading = { textDelta: null, toolCallDeltas: [], finishReason: null, usage: null, errorMessage: null };
  if (!parsed.success) return { ...empty, errorMessage: 'the upstream sent a stream chunk that is not a chat completion chunk' };
  if (parsed.data.error !== undefined && parsed.data.error !== null) {
    return { ...empty, errorMessage: `the upstream reported an error mid-stream: ${upstreamErrorText(parsed.data.error)}` };
  }
  const choice = parsed.data.choices?.find((candidate) => (candidate.index ?? 0) === 0);
  return {
    textDelta: choice?.delta?.content ?? null,
    toolCallDeltas: (choice?.delta?.tool_calls ?? []).map((call) => ({
      index: call.index ?? null,
      id: call.id ?? null,
      name: call.function?.name ?? null,
      argumentsPiece: call.function?.arguments ?? null,
    })),
    finishReason: choice?.finish_reason ?? null,
    usage: readChatUsage(parsed.data.usage),
    errorMessage: null,
  };
}

export function readChatCompletion(json: unknown): ChatCompletionReading | null {
  const parsed = completionSchema.safeParse(json);
  if (!parsed.success) return null;
  const [choice] = parsed.data.choices;
  if (!choice) return null;
  return {
    text: choice.message.content ?? choice.message.refusal ?? '',
    toolCalls: (choice.message.tool_calls ?? []).map((call) => ({
      id: call.id,
      name: call.function.name,
      arguments: call.function.arguments ?? '',
    })),
    finishReason: choice.finish_reason ?? null,
    usage: readChatUsage(parsed.data.usage),
  };
}

function upstreamErrorText(error: unknown): string {
  if (typeof error === 'string') return error;
  if (typeof error === 'object' && error !== null && 'message' in error && typeof error.message === 'string') return error.message;
  return 'no message';
}
