import type { TokenUsage } from '../../contracts/usage.ts';
import type { DeclaredError, ObserverOptions, StreamObserver, StreamSink } from '../adapter.ts';
import { eventJson, type SseEvent } from '../sse.ts';
import { errorMemberOf } from '../declaredError.ts';
import { isUsageOnlyChunk, usageFromChatChunk } from './usage.ts';
import { isRecord } from '../../core/isRecord.ts';
import { chatThinkingOf, contentOf } from './contentParts.ts';
import { toolArgumentsText } from './chatShapes.ts';
import { finishReasonOf } from './finishReason.ts';
import { choiceErrorOf } from './choiceError.ts';
import { isChatStreamEnd } from './streamEnd.ts';
import { type RelayThinking, RelayThinkingReader, relayThinkingOf } from './relayThinking.ts';
import { joinedToolCallName } from './toolCallName.ts';

/**
 * Chat Completions: `data: {chunk}` … and, from most gateways, `data: [DONE]`. The answer is
 * whole at `[DONE]`, or once every choice has its finish_reason and the usage asked for has come:
 * gateways that never send `[DONE]` exist (the stream then just ends), and a stream cut before
 * the finish chunk or before the usage chunk still never looks whole.
 *
 * Usage counts as reported only when it is final: on a usage-only chunk (or a chunk of usage alone
 * once every choice finished), on a finish chunk, or the last seen before `[DONE]`. Some gateways
 * put a running count on every chunk; a stream cut halfway then has a partial count, which is held
 * back (only stated, for its input) so the request is estimated instead.
 *
 * A usage stated again wins over the one before, for the bill and for a translated client alike
 * (the relay ends a translated client only once `usageSettled`): OpenAI's usage chunk, the last before
 * `[DONE]`, counts the entire request (its API reference, `stream_options.include_usage`), and relays
 * state partial counts before it, on text chunks or on the finish chunk (router-for-me/CLIProxyAPI#3077).
 */
export class ChatStreamObserver implements StreamObserver {
  readonly wholeAtCleanEnd = false;
  upstreamError: DeclaredError | null = null;
  private sawDone = false;
  private modelSeen = false;
  private readonly openChoices = new Set<number>();
  private readonly finishedChoices = new Set<number>();
  private heldUsage: TokenUsage | null = null;
  private usageReported = false;
  private usageChunkAfterFinish = false;
  private readonly sink: StreamSink;
  private readonly options: ObserverOptions;
  /** Made at a relay's first thinking block: most streams carry none, and each open one held it. */
  private relayThinking: RelayThinkingReader | null = null;
  /** Each streamed call's id and name so far, by choice and call index; made when the first name comes. */
  private toolCallNames: Map<string, { id: string | null; name: string }> | null = null;

  constructor(sink: StreamSink, options: ObserverOptions) {
    this.sink = sink;
    this.options = options;
  }

  get complete(): boolean {
    if (this.sawDone) return true;
    return this.allChoicesFinished() && (!this.options.usageAsked || this.usageReported);
  }

  /**
   * No later event may state another usage: `[DONE]` came, or the usage chunk after every choice finished.
   * A count on a finish chunk makes the answer whole, but the usage chunk may still restate it: servers with
   * running counts put one on every chunk, the finish chunk's included, then the usage chunk (vLLM's and
   * SGLang's `continuous_usage_stats`, Baseten's default; router-for-me/CLIProxyAPI#3077). So a translated
   * client whose gateway neither sends `[DONE]` nor ends its body waits the grace (streamRelay.ts) for it.
   */
  get usageSettled(): boolean {
    return this.sawDone || this.usageChunkAfterFinish;
  }

  get awaiting(): string {
    if (!this.allChoicesFinished()) return 'a finish_reason on every choice or [DONE]';
    return 'the usage chunk it was asked for (stream_options.include_usage) or [DONE]';
  }

  observe(event: SseEvent): boolean {
    // Passed on as sent, but no client reads what follows [DONE]: neither text, usage nor an error counts.
    if (this.sawDone) return true;
    if (isChatStreamEnd(event)) {
      this.sawDone = true;
      this.reportHeldUsage();
      return true;
    }
    const chunk = eventJson(event);
    if (event.event === 'error' && (chunk === null || chunk.error === undefined)) {
      this.upstreamError = namedErrorOf(event.data, chunk);
      return true;
    }
    if (!chunk) {
      // An event whose JSON was cut (a relay that lost part of a chunk), or text where a chunk was due: the OpenAI SDKs throw at either.
      if (event.data.trim() !== '') this.upstreamError ??= brokenEventError(event.data);
      return true;
    }
    // OpenAI, vLLM and LiteLLM send `{error}` alone; OpenRouter a chunk with `error` and finish_reason "error", or the error on the choice.
    this.upstreamError = errorMemberOf(chunk) ?? choiceErrorOf(chunk.choices) ?? this.upstreamError;
    // Azure's first chunk (prompt filter results, no choices) says model "": no model is named there.
    if (!this.modelSeen && typeof chunk.model === 'string' && chunk.model !== '') {
      this.modelSeen = true;
      this.sink.onModel(chunk.model);
    }
    const finishedBefore = this.allChoicesFinished();
    const finishing = this.readChoices(chunk.choices);
    const usage = usageFromChatChunk(chunk);
    // Once every choice finished, a chunk of usage alone is the usage chunk, whatever its choices
    // hold: LiteLLM's holds one with an empty delta and no finish_reason (BerriAI/litellm#28735).
    const usageOnly =
      isUsageOnlyChunk(chunk) || (usage !== null && finishedBefore && this.allChoicesFinished() && holdsNothing(chunk.choices));
    if (usage) {
      this.usageChunkAfterFinish ||= usageOnly && this.allChoicesFinished();
      this.heldUsage = usage;
      if (usageOnly || finishing) this.reportHeldUsage();
      else this.sink.onStatedUsage?.(usage);
    }
    return !(this.options.dropUsageOnlyChunks && usageOnly);
  }

  private allChoicesFinished(): boolean {
    return this.finishedChoices.size > 0 && this.openChoices.size === 0;
  }

  /** Hands every choice's text to the sink; true when a choice finished in this chunk. */
  private readChoices(choices: unknown): boolean {
    if (!Array.isArray(choices)) return false;
    let finishing = false;
    for (const [position, choice] of choices.entries()) {
      if (typeof choice !== 'object' || choice === null) continue;
      const {
        index,
        delta,
        finish_reason: finishReason,
        text,
      } = choice as { index?: unknown; delta?: { content?: unknown }; finish_reason?: unknown; text?: unknown };
      const choiceIndex = typeof index === 'number' ? index : position;
      // A legacy completion's chunk writes its text in `text`, a chat chunk's in `delta.content` (a string, or Mistral's parts).
      const content = contentOf(delta?.content ?? text).text;
      if (content !== null && content.length > 0) this.sink.onDelta(content);
      if (isRecord(delta)) this.readOtherOutput(delta, choiceIndex);
      if (finishReasonOf(finishReason) !== null) {
        finishing = true;
        this.openChoices.delete(choiceIndex);
        this.finishedChoices.add(choiceIndex);
      } else if (!this.finishedChoices.has(choiceIndex)) {
        this.openChoices.add(choiceIndex);
      }
    }
    return finishing;
  }

  private readRelayThinking(relayThinking: RelayThinking): void {
    this.relayThinking ??= this.newRelayThinkingReader();
    this.relayThinking.read(relayThinking);
  }

  private newRelayThinkingReader(): RelayThinkingReader {
    const { sink } = this;
    return new RelayThinkingReader({
      onThinking: (blockIndex, text) => sink.onThinking?.(blockIndex, text),
      onThinkingSignature: (blockIndex, bytes) => sink.onThinkingSignature?.(blockIndex, bytes),
      onOpaqueOutput: (bytes) => sink.onOpaqueOutput?.(bytes),
      onOtherOutput: (text) => sink.onOtherOutput?.(text),
    });
  }

  /** Thinking, a refusal and tool calls are output the gateway bills: a stream without usage is estimated with them. */
  private readOtherOutput(delta: Record<string, unknown>, choiceIndex: number): void {
    // A relay's thinking blocks hold the same thinking as its text field, and the signature that may hold more.
    const relayThinking = relayThinkingOf(delta);
    if (relayThinking !== null) this.readRelayThinking(relayThinking);
    else {
      const reasoning = chatThinkingOf(delta)?.text ?? '';
      if (reasoning.length > 0) this.sink.onOtherOutput?.(reasoning);
    }
    const refusal = delta['refusal'];
    if (typeof refusal === 'string' && refusal.length > 0) this.sink.onOtherOutput?.(refusal);
    const calls = delta['tool_calls'];
    if (!Array.isArray(calls)) return;
    for (const [position, call] of calls.entries()) {
      const fn = isRecord(call) ? call['function'] : null;
      if (!isRecord(call) || !isRecord(fn)) continue;
      const name = typeof fn['name'] === 'string' && fn['name'] !== '' ? this.newNameText(choiceIndex, position, call, fn['name']) : '';
      const written = `${name}${toolArgumentsText(fn['arguments']) ?? ''}`;
      if (written.length > 0) this.sink.onOtherOutput?.(written);
    }
  }

  /**
   * What a call's name piece adds to the name: a gateway that sends the name again on every delta
   * (toolCallName.ts) wrote it once. A new id at the index is a new call (some number every call 0).
   */
  private newNameText(choiceIndex: number, position: number, call: Record<string, unknown>, piece: string): string {
    const key = `${choiceIndex}:${typeof call['index'] === 'number' ? call['index'] : position}`;
    this.toolCallNames ??= new Map();
    const known = this.toolCallNames.get(key);
    const id = typeof call['id'] === 'string' && call['id'] !== '' ? call['id'] : null;
    const sameCall = known !== undefined && (id === null || known.id === null || id === known.id);
    const before = sameCall ? known.name : '';
    const name = joinedToolCallName(before, piece);
    this.toolCallNames.set(key, { id: id ?? known?.id ?? null, name });
    return name === before ? '' : piece;
  }

  private reportHeldUsage(): void {
    if (this.heldUsage === null) return;
    this.sink.onUsage(this.heldUsage);
    this.heldUsage = null;
    this.usageReported = true;
  }
}

const saysNothing = (value: unknown): boolean => value === undefined || value === null || value === '';

/** Choices that say nothing: no finish_reason, no legacy `text`, and deltas whose fields are all empty or null. */
function holdsNothing(choices: unknown): boolean {
  if (!Array.isArray(choices)) return false;
  return choices.every((choice) => {
    if (!isRecord(choice) || finishReasonOf(choice['finish_reason']) !== null || !saysNothing(choice['text'])) return false;
    const delta = choice['delta'];
    return delta === undefined || (isRecord(delta) && Object.values(delta).every(saysNothing));
  });
}

/**
 * An `event: error` whose data is the error itself (`{code, message}`, as upstreams send new-api:
 * DeliciousBuding/new-api#142) or plain text. The OpenAI SDKs throw only on an `error` member, so
 * they would take it for a chunk: it is an error nonetheless, which the client must be told of.
 */
function namedErrorOf(data: string, json: Record<string, unknown> | null): DeclaredError {
  const declared = (json === null ? null : errorMemberOf({ error: json })) ?? { message: data, code: null, type: null, status: null };
  return { ...declared, unreadByClients: true };
}

/**
 * A data event that is no JSON (lucgagan/completions#15: OpenAI `data:` lines cut mid-JSON;
 * chatboxai/chatbox#153 the same through a reverse proxy). The OpenAI SDKs throw at it, so a
 * translated client is told of it too, not given a whole answer with a hole in it. One that began
 * as JSON was a chunk of the answer cut short: the model ran, so it is billed as a break; text
 * where a chunk was due is read as the relay's error. The event is not quoted: a cut can fall
 * inside a key the gateway echoed, and a key's tail alone is not masked.
 */
function brokenEventError(data: string): DeclaredError {
  const first = data.trimStart()[0];
  const cutChunk = first === '{' || first === '[';
  const message = `the stream carried an event that is not JSON (${data.length} characters${cutChunk ? ', a chunk cut short or damaged' : ''}), so part of the answer is lost`;
  return { message, code: null, type: null, status: null, ...(cutChunk ? { brokeOff: true as const } : {}) };
}
