import type { EventSourceMessage } from 'eventsource-parser';
import type { TokenUsage } from '../contracts/usage.ts';
import { isUsageOnlyChunk, usageFromChatChunk } from './chat/usage.ts';
import { eventJson, type StreamObserver } from './sseRelay.ts';

export interface StreamSink {
  onDelta(text: string): void;
  onUsage(usage: TokenUsage): void;
  onModel(model: string): void;
}

function errorMessageOf(json: Record<string, unknown>): string | null {
  const error = json.error;
  if (typeof error === 'string') return error;
  if (typeof error === 'object' && error !== null) {
    const message = (error as { message?: unknown }).message;
    return typeof message === 'string' ? message : JSON.stringify(error);
  }
  return null;
}

/** Chat Completions: `data: {chunk}` … `data: [DONE]`. */
export class ChatStreamObserver implements StreamObserver {
  sawEndMarker = false;
  upstreamErrorMessage: string | null = null;
  private modelSeen = false;
  private readonly sink: StreamSink;
  private readonly dropUsageOnlyChunks: boolean;

  constructor(sink: StreamSink, dropUsageOnlyChunks: boolean) {
    this.sink = sink;
    this.dropUsageOnlyChunks = dropUsageOnlyChunks;
  }

  observe(event: EventSourceMessage): boolean {
    if (event.data === '[DONE]') {
      this.sawEndMarker = true;
      return true;
    }
    const chunk = eventJson(event);
    if (!chunk) return true;
    const errorMessage = errorMessageOf(chunk);
    if (errorMessage !== null) this.upstreamErrorMessage = errorMessage;
    if (!this.modelSeen && typeof chunk.model === 'string') {
      this.modelSeen = true;
      this.sink.onModel(chunk.model);
    }
    const usage = usageFromChatChunk(chunk);
    if (usage) this.sink.onUsage(usage);
    const choices = chunk.choices;
    if (Array.isArray(choices)) {
      for (const choice of choices) {
        const content = (choice as { delta?: { content?: unknown } }).delta?.content;
        if (typeof content === 'string' && content.length > 0) this.sink.onDelta(content);
      }
    }
    return !(this.dropUsageOnlyChunks && isUsageOnlyChunk(chunk));
  }
}

/** Anthropic Messages passed through natively: usage in message_start and message_delta. */
export class AnthropicStreamObserver implements StreamObserver {
  sawEndMarker = false;
  upstreamErrorMessage: string | null = null;
  private inputTokens = 0;
  private readonly sink: StreamSink;

  constructor(sink: StreamSink) {
    this.sink = sink;
  }

  observe(event: EventSourceMessage): boolean {
    const json = eventJson(event);
    const type = event.event ?? (typeof json?.type === 'string' ? json.type : '');
    if (!json) return true;
    if (type === 'message_stop') this.sawEndMarker = true;
    if (type === 'error') this.upstreamErrorMessage = errorMessageOf(json) ?? 'error event';
    if (type === 'message_start') {
      const message = json.message as { model?: unknown; usage?: { input_tokens?: unknown } } | undefined;
      if (typeof message?.model === 'string') this.sink.onModel(message.model);
      if (typeof message?.usage?.input_tokens === 'number') this.inputTokens = message.usage.input_tokens;
    }
    if (type === 'content_block_delta') {
      const text = (json.delta as { text?: unknown } | undefined)?.text;
      if (typeof text === 'string') this.sink.onDelta(text);
    }
    if (type === 'message_delta') {
      const usage = json.usage as { output_tokens?: unknown; input_tokens?: unknown } | undefined;
      if (typeof usage?.output_tokens === 'number') {
        const inputTokens = typeof usage.input_tokens === 'number' ? usage.input_tokens : this.inputTokens;
        this.sink.onUsage({ inputTokens, outputTokens: usage.output_tokens });
      }
    }
    return true;
  }
}

/** Responses API passed through natively: text deltas and the usage of response.completed. */
export class ResponsesStreamObserver implements StreamObserver {
  sawEndMarker = false;
  upstreamErrorMessage: string | null = null;
  private readonly sink: StreamSink;

  constructor(sink: StreamSink) {
    this.sink = sink;
  }

  observe(event: EventSourceMessage): boolean {
    const json = eventJson(event);
    if (!json) return true;
    const type = typeof json.type === 'string' ? json.type : (event.event ?? '');
    if (type === 'response.output_text.delta' && typeof json.delta === 'string') this.sink.onDelta(json.delta);
    if (type === 'error' || type === 'response.failed') {
      this.upstreamErrorMessage = errorMessageOf(json) ?? errorMessageOf((json.response ?? {}) as Record<string, unknown>) ?? type;
    }
    if (type === 'response.completed' || type === 'response.failed' || type === 'response.incomplete') {
      this.sawEndMarker = true;
      const response = json.response as { model?: unknown; usage?: { input_tokens?: unknown; output_tokens?: unknown } } | undefined;
      if (typeof response?.model === 'string') this.sink.onModel(response.model);
      const usage = response?.usage;
      if (typeof usage?.input_tokens === 'number' && typeof usage.output_tokens === 'number') {
        this.sink.onUsage({ inputTokens: usage.input_tokens, outputTokens: usage.output_tokens });
      }
    }
    return true;
  }
}

/** Any other SSE: relayed untouched, with no notion of a proper end. */
export class OpaqueStreamObserver implements StreamObserver {
  sawEndMarker = true;
  upstreamErrorMessage: string | null = null;

  observe(): boolean {
    return true;
  }
}
