import type { DeclaredError, StreamObserver, StreamSink } from '../adapter.ts';
import { eventJson, eventType, type SseEvent } from '../sse.ts';
import { anthropicErrorOf } from './declaredError.ts';
import { redactedThinkingBytes, thinkingSignatureBytes } from './encryptedThinking.ts';
import { anthropicUsageOf } from './usage.ts';

/**
 * Anthropic Messages from a gateway that speaks it: the input count comes in message_start, the
 * final counts in message_delta, and the answer is whole at message_stop.
 */
export class AnthropicStreamObserver implements StreamObserver {
  complete = false;
  readonly wholeAtCleanEnd = false;
  upstreamError: DeclaredError | null = null;
  private startUsage: Record<string, unknown> = {};
  /** The visible thinking of the block being streamed, for its signature (blocks stream one after another). */
  private blockThinking = '';
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
      else if (typeof delta?.thinking === 'string') {
        this.sink.onOtherOutput?.(delta.thinking);
        this.blockThinking += delta.thinking;
      } else if (typeof delta?.partial_json === 'string') this.sink.onOtherOutput?.(delta.partial_json);
      else if (delta?.signature !== undefined) this.signed(delta.signature);
    } else if (type === 'content_block_start') {
      this.blockThinking = '';
      // Redacted thinking comes whole in its start, with no deltas.
      const bytes = redactedThinkingBytes(json.content_block);
      if (bytes > 0) this.sink.onOpaqueOutput?.(bytes);
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

  /** A thinking block's signature_delta, just before its stop: on Claude 4 models its full thinking, encrypted. */
  private signed(signature: unknown): void {
    const signatureBytes = thinkingSignatureBytes(signature);
    if (signatureBytes > 0) this.sink.onSignedThinking?.(this.blockThinking, signatureBytes);
    this.blockThinking = '';
  }
}
