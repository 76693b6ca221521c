import { isRecord } from '../../core/isRecord.ts';
import type { DeclaredError, StreamObserver, StreamSink } from '../adapter.ts';
import { eventJson, eventType, type SseEvent } from '../sse.ts';
import { anthropicErrorOf } from './declaredError.ts';
import { base64DataBytes, base64DataChars, redactedThinkingBytes } from './encryptedThinking.ts';
import { anthropicUsageOf } from './usage.ts';

/**
 * Anthropic Messages from a gateway that speaks it: the input count comes in message_start, the
 * final counts in message_delta, and the answer is whole at message_stop.
 */
export class AnthropicStreamObserver implements StreamObserver {
  complete = false;
  readonly wholeAtCleanEnd = false;
  readonly awaiting = 'message_stop';
  upstreamError: DeclaredError | null = null;
  private startUsage: Record<string, unknown> = {};
  /** Each thinking block's signature so far, in base64 data characters, by the block's index: pieces add up to the whole. */
  private readonly signatureChars = new Map<number, number>();
  private readonly sink: StreamSink;

  constructor(sink: StreamSink) {
    this.sink = sink;
  }

  observe(event: SseEvent): boolean {
    const json = eventJson(event);
    if (!json) return true;
    const type = eventType(event, json);
    // The answer's deltas are nearly every event of a stream: they are told apart first.
    if (type === 'content_block_delta') {
      const delta = json.delta as { text?: unknown; thinking?: unknown; partial_json?: unknown; signature?: unknown } | undefined;
      if (typeof delta?.text === 'string') this.sink.onDelta(delta.text);
      // Thinking and a tool call's input are billed output too: a stream without usage is estimated with them.
      else if (typeof delta?.thinking === 'string') this.sink.onThinking?.(blockIndexOf(json), delta.thinking);
      else if (typeof delta?.partial_json === 'string') this.sink.onOtherOutput?.(delta.partial_json);
      else if (typeof delta?.signature === 'string') this.signed(blockIndexOf(json), delta.signature);
    } else if (type === 'content_block_start') {
      // Redacted thinking comes whole in its start, with no deltas.
      const bytes = redactedThinkingBytes(json.content_block);
      if (bytes > 0) this.sink.onOpaqueOutput?.(bytes);
      // A tool call's name, which the model wrote, comes only in its start; its input follows in deltas.
      const toolName = toolNameOf(json.content_block);
      if (toolName !== null) this.sink.onOtherOutput?.(toolName);
    } else if (type === 'message_stop') this.complete = true;
    else if (type === 'error')
      this.upstreamError = anthropicErrorOf(json) ?? { message: 'error event', code: null, type: null, status: null };
    else if (type === 'message_start') {
      const message = json.message as { model?: unknown; usage?: unknown } | undefined;
      if (typeof message?.model === 'string') this.sink.onModel(message.model);
      if (typeof message?.usage === 'object' && message.usage !== null) this.startUsage = message.usage as Record<string, unknown>;
      const stated = anthropicUsageOf(this.startUsage);
      if (stated) this.sink.onStatedUsage?.(stated);
    } else if (type === 'message_delta' && typeof json.usage === 'object' && json.usage !== null) {
      // message_delta's counts are cumulative; the input ones it leaves out, or sends as null
      // (OpenRouter's Messages API does), are message_start's, as the Anthropic SDKs' MessageStream reads them.
      const given = Object.entries(json.usage).filter(([, value]) => value !== null);
      const usage = anthropicUsageOf({ ...this.startUsage, ...Object.fromEntries(given) });
      if (usage) this.sink.onUsage(usage);
    }
    return true;
  }

  /**
   * A piece of a thinking block's signature: Anthropic sends it whole in one signature_delta just before the
   * block's stop, but a relay may split it or send it after the next block started (OpenRouter,
   * rikkahub/rikkahub#1076). It is counted with its own block, all its pieces together.
   */
  private signed(blockIndex: number, signature: string): void {
    const chars = (this.signatureChars.get(blockIndex) ?? 0) + base64DataChars(signature);
    this.signatureChars.set(blockIndex, chars);
    if (chars > 0) this.sink.onThinkingSignature?.(blockIndex, base64DataBytes(chars));
  }
}

/** A content block event's `index`: which block of the message it belongs to (0 when a relay leaves it out). */
function blockIndexOf(json: Record<string, unknown>): number {
  return typeof json.index === 'number' ? json.index : 0;
}

/** The name of a content block that is a tool call (a client's tool_use, a server_tool_use), else null. */
function toolNameOf(block: unknown): string | null {
  if (!isRecord(block) || (block.type !== 'tool_use' && block.type !== 'server_tool_use')) return null;
  return typeof block.name === 'string' && block.name !== '' ? block.name : null;
}
