import { isRecord } from '../../core/isRecord.ts';
import type { DeclaredError, ObserverOptions, StreamObserver, StreamSink } from '../adapter.ts';
import { ChatStreamObserver } from '../chat/observer.ts';
import { usageFromChatChunk } from '../chat/usage.ts';
import { errorMemberOf } from '../declaredError.ts';
import { responsesUsageOf } from '../responses/usage.ts';
import { eventJson, type SseEvent } from '../sse.ts';
import { audioUsageOf } from './audioUsage.ts';

/** The text events of OpenAI's streamed transcriptions (`transcript.text.delta`): the transcript, billed as output. */
const TEXT_DELTA_EVENTS = new Set(['transcript.text.delta']);

/**
 * The streams of the endpoints Airlock passes through, relayed as they come and read for what the
 * log needs. Legacy completions (`choices[].text`, `[DONE]`) are chat streams in all but the text's
 * field: read as chat is, whole only at `[DONE]` or every choice's finish, so one cut cleanly is no
 * whole answer. OpenAI's media events (transcript.text.*, speech.audio.*, image_generation.*) carry
 * their usage on the event that ends them; such a stream, and any other, is whole when it ends cleanly.
 */
export class PassthroughStreamObserver implements StreamObserver {
  readonly #sink: StreamSink;
  readonly #options: ObserverOptions;
  #completion: ChatStreamObserver | null = null;
  #upstreamError: DeclaredError | null = null;
  #modelSeen = false;

  constructor(sink: StreamSink, options: ObserverOptions) {
    this.#sink = sink;
    this.#options = options;
  }

  get complete(): boolean {
    return this.#completion?.complete ?? false;
  }

  get wholeAtCleanEnd(): boolean {
    return this.#completion === null;
  }

  /** Only a legacy completion has an end to wait for; any other stream is whole when it ends cleanly. */
  get awaiting(): string {
    return this.#completion?.awaiting ?? 'nothing';
  }

  get upstreamError(): DeclaredError | null {
    return this.#completion?.upstreamError ?? this.#upstreamError;
  }

  observe(event: SseEvent): boolean {
    if (this.#completion !== null) return this.#completion.observe(event);
    const json = event.data === '[DONE]' ? null : eventJson(event);
    if (json === null) return true;
    if (Array.isArray(json.choices)) {
      this.#completion = new ChatStreamObserver(this.#sink, this.#options);
      return this.#completion.observe(event);
    }
    this.#upstreamError = errorMemberOf(json) ?? this.#upstreamError;
    if (!this.#modelSeen && typeof json.model === 'string') {
      this.#modelSeen = true;
      this.#sink.onModel(json.model);
    }
    if (typeof json.type === 'string' && TEXT_DELTA_EVENTS.has(json.type) && typeof json.delta === 'string') this.#sink.onDelta(json.delta);
    const usage = isRecord(json.usage) ? (audioUsageOf(json) ?? responsesUsageOf(json.usage) ?? usageFromChatChunk(json)) : null;
    if (usage !== null) this.#sink.onUsage(usage);
    return true;
  }
}
