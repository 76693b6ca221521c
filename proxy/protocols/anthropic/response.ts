import { randomUUID } from 'node:crypto';
import { type AnswerSource, signedRelayThinking, thinkingMark } from '../chat/relayThinking.ts';
import type { TokenUsage } from '../../contracts/usage.ts';
import { readChatCompletion } from '../chat/chatShapes.ts';
import { parsedRecord } from '../../core/isRecord.ts';
import { clientCallId } from '../chat/thoughtSignature.ts';

/** Chat Completions reply -> Anthropic Messages reply (the non-streaming form). */

export type AnthropicStopReason = 'end_turn' | 'max_tokens' | 'tool_use' | 'refusal' | 'stop_sequence';

export interface AnthropicUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
  /** The writes by cache lifetime, where the gateway told them apart (a 1-hour write costs more). */
  cache_creation?: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
}

export type AnthropicResponseTranslation =
  | { ok: true; body: Record<string, unknown>; usage: TokenUsage | null; notes: string[] }
  | { ok: false; message: string };

export function newAnthropicMessageId(): string {
  return `msg_${randomUUID().replaceAll('-', '')}`;
}

/**
 * Chat has no `stop_sequence` reason: a matched stop sequence reads as `end_turn` (`stop_sequence:
 * null`) unless the gateway names it (`stopSequence`, vLLM's). Some upstreams finish a tool call
 * with `stop`, so any tool call makes it `tool_use`.
 */
function anthropicStopReason(finishReason: string | null, hasToolCalls: boolean, stopSequence: string | null): AnthropicStopReason {
  if (finishReason === 'tool_calls' || finishReason === 'function_call' || hasToolCalls) return 'tool_use';
  if (finishReason === 'length') return 'max_tokens';
  if (finishReason === 'content_filter') return 'refusal';
  return stopSequence === null ? 'end_turn' : 'stop_sequence';
}

/** Anthropic's `stop_reason` and `stop_sequence`: the sequence only with its reason. */
export function anthropicStop(
  finishReason: string | null,
  hasToolCalls: boolean,
  stopSequence: string | null,
): { stop_reason: AnthropicStopReason; stop_sequence: string | null } {
  const reason = anthropicStopReason(finishReason, hasToolCalls, stopSequence);
  return { stop_reason: reason, stop_sequence: reason === 'stop_sequence' ? stopSequence : null };
}

/**
 * Anthropic counts cache reads and writes apart from `input_tokens`; chat counts both inside
 * prompt_tokens (writes as OpenRouter's and OpenAI's `cache_write_tokens`). A client prices each
 * part at its own rate, so writes left in `input_tokens` would read as plain input to it.
 */
export function anthropicUsage(usage: TokenUsage | null): AnthropicUsage {
  if (usage === null) return { input_tokens: 0, output_tokens: 0 };
  const cached = usage.cachedInputTokens;
  const written = usage.cacheWriteInputTokens;
  const shown: AnthropicUsage = {
    input_tokens: Math.max(0, usage.inputTokens - (cached ?? 0) - (written ?? 0)),
    output_tokens: usage.outputTokens,
  };
  if (cached !== undefined) shown.cache_read_input_tokens = cached;
  if (written !== undefined) shown.cache_creation_input_tokens = written;
  const written1h = usage.cacheWrite1hInputTokens;
  if (written !== undefined && written1h !== undefined) {
    shown.cache_creation = { ephemeral_5m_input_tokens: Math.max(0, written - written1h), ephemeral_1h_input_tokens: written1h };
  }
  return shown;
}

/**
 * Tool arguments that are not a JSON object become `input: {}` with a note: Anthropic's `input`
 * must be an object, and the client's schema check then tells the model what was missing.
 */
export function chatToAnthropicResponse(
  chatJson: unknown,
  options: { requestedModel: string; messageId?: string; unreportedUsage?: TokenUsage | null } & AnswerSource,
): AnthropicResponseTranslation {
  const reply = readChatCompletion(chatJson);
  if (reply === null) return { ok: false, message: 'the upstream reply has no choices to translate' };
  const notes: string[] = [];
  const messageId = options.messageId ?? newAnthropicMessageId();
  const content: Record<string, unknown>[] = [];
  // The thinking block comes first, as Anthropic's own answers order it; see emptyContentBlock in stream.ts for the signature.
  if (reply.reasoning !== '' || signedRelayThinking(reply.relayThinking) !== null) {
    content.push({
      type: 'thinking',
      thinking: reply.reasoning,
      signature: thinkingMark(reply.reasoningField ?? 'reasoning_content', reply.relayThinking, options),
    });
  }
  if (reply.text !== '') content.push({ type: 'text', text: reply.text });
  // Anthropic has no refusal block: a model that declines says so in text, as the stream's refusal block is rendered.
  if (reply.refusal !== '') content.push({ type: 'text', text: reply.refusal });
  for (const call of reply.toolCalls) {
    // A call without an id is named as a streamed one is (stream.ts).
    const id = clientCallId(call.id ?? `toolu_${messageId}_${content.length}`, call.thoughtSignature, options.gatewayTag);
    content.push({ type: 'tool_use', id, name: call.name, input: parseToolInput(call.arguments, call.name, notes) });
  }
  const body = {
    id: messageId,
    type: 'message',
    role: 'assistant',
    model: options.requestedModel,
    content,
    ...anthropicStop(reply.finishReason, reply.toolCalls.length > 0, reply.stopSequence),
    usage: anthropicUsage(reply.usage ?? options.unreportedUsage ?? null),
  };
  return { ok: true, body, usage: reply.usage, notes };
}

function parseToolInput(argumentsJson: string, toolName: string, notes: string[]): Record<string, unknown> {
  if (argumentsJson.trim() === '') return {};
  const value = parsedRecord(argumentsJson);
  if (value !== null) return value;
  // The upstream model wrote broken JSON, or JSON that is no object.
  notes.push(`tool call ${toolName}: arguments were not a JSON object, sent as {}`);
  return {};
}
