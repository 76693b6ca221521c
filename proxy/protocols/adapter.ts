import type { ErrorClass } from '../contracts/errors.ts';
import type { LocalRefusal } from '../contracts/ports.ts';
import type { Profile } from '../contracts/profile.ts';
import type { ClientProtocol, TokenUsage } from '../contracts/usage.ts';
import type { ClientErrorDetail } from '../core/errorClass.ts';
import type { KeyMasker } from '../core/keyMasker.ts';
import type { AnswerSource } from './chat/relayThinking.ts';
import type { GatewaySaid } from './contextOverflow.ts';
import type { ChatRequestTranslation, ClientToolNames } from './requestResult.ts';
import type { SseEvent } from './sse.ts';
import type { StreamKeyGuard } from './streamKeyGuard.ts';
import type { StreamEventTranslator, StreamFailure } from './streamTranslator.ts';

/**
 * A protocol Airlock speaks, as a declarative object of pure parts: how its errors look, how its
 * streams are read, when one is complete, where its answers carry usage, and (for the protocols
 * a Chat Completions gateway does not speak) how a request and its answer are translated. The
 * forwarding stages never name a protocol; they ask the adapter the registry gives for the path.
 */
export interface ProtocolAdapter {
  /** The name the log and the window show. */
  readonly name: ClientProtocol;
  /** The paths (relative to /v1) this protocol owns, and what each is. */
  readonly endpoints: Readonly<Record<string, EndpointKind>>;
  readonly errors: ProtocolErrors;
  readonly stream: ProtocolStream;
  /**
   * Usage and model in one of this protocol's JSON answers (null fields where it has none): an
   * answer that did not stream, so its headers, sent with it whole, may state its price too.
   */
  readAnswer(json: object, endpoint: EndpointKind, headers: AnswerHeaders): AnswerReading;
  /**
   * Masks the key, in place, in a whole answer's fields a client joins into text that no one string
   * holds (chat's logprob tokens); true if any changed, and the answer is then written anew.
   */
  maskJoinedFields?(answer: object, masker: KeyMasker): boolean;
  /** The most output tokens a request that runs a model may be billed for, from the limit it states; null without one. */
  outputTokenLimit(body: Record<string, unknown>): number | null;
  /** How many per-call prices a request may be billed for, where more than one (images asked for with `n`). */
  perCallCount?(body: Record<string, unknown>): number;
  /**
   * The items of a whole answer billed each as a call (images), as a top-level array member and the
   * keys an item holds as a string: counted as they pass in an answer too large to read whole.
   */
  readonly billedAnswerItems?: { member: string; keys: readonly string[] };
  /** Present for a protocol that reaches a Chat Completions gateway by translation. */
  readonly translation?: ChatTranslation;
  /** What a request sent natively must lose of what Airlock's translation gave its client earlier in the session. */
  readonly nativeRequest?: NativeRequestCleanup;
}

/** The gateway's headers of an answer, as Node gives them (names lower-cased). */
export type AnswerHeaders = Readonly<Record<string, string | string[] | undefined>>;

/**
 * Parts of a request that Airlock made under translation (its marked thinking) and no native API
 * accepts. Only a body holding one of `needles` (searched in its bytes) is read for them.
 */
export interface NativeRequestCleanup {
  /** Made once: the search runs on every native request of the protocol. */
  readonly needles: readonly Buffer[];
  /** The body without those parts and a note for the log; null when it has none. */
  clean(body: Record<string, unknown>): { body: Record<string, unknown>; note: string } | null;
}

/**
 * - generate: a model answers; its usage is billed.
 * - count: the input is counted, no model runs (Anthropic's count_tokens): never billed as a request.
 * - other: anything else the protocol passes through (models, embeddings, images, audio, tasks).
 */
export type EndpointKind = 'generate' | 'count' | 'other';

export interface AnswerReading {
  usage: TokenUsage | null;
  model: string | null;
  /** The answer is only an error, in this protocol's shape, though its status said success (see DeclaredError). */
  error: DeclaredError | null;
  /** What a per-call price is billed for when it is more than the one request: the images an answer made. */
  calls?: number;
}

/**
 * An error the gateway sent where an answer was due: a 200 whose body holds only an error, or an
 * error event in a 200 stream. Relays do both (declaredError.ts cites them); each protocol reads
 * its own shape, and declaredError.ts classifies what it read.
 */
export interface DeclaredError {
  /** What the gateway said, as sent (masked before it is shown or logged). */
  message: string;
  /** Its `code` and `type`, as sent: relays put the meaning in either. */
  code: string | null;
  type: string | null;
  /** The HTTP status the error stands for, when the protocol's shape says it (a numeric code, an Anthropic error type). */
  status: number | null;
  /** Set when the protocol's SDKs would not read the event as an error (only its name said so): the client then gets one it reads. */
  unreadByClients?: true;
  /** Set when the answer itself broke (an event cut short), not the gateway declaring an error: the model ran, so it is billed as a break. */
  brokeOff?: true;
}

export interface ProtocolErrors {
  /** The status a client of this protocol gets for a failure (its clients' retry logic keys on it). */
  status(errorClass: ErrorClass, upstreamStatus: number): number;
  /** The error body this protocol's clients parse. */
  body(status: number, errorClass: ErrorClass, detail: ClientErrorDetail): object;
  /** A local refusal in this protocol's shape. */
  refusalBody(refusal: LocalRefusal): object;
  /** A stream already under way cannot change its status: the failure goes in-band, never as a fake end. */
  streamFrame(errorClass: ErrorClass, detail: ClientErrorDetail): string;
  /** The response header this protocol's SDK reads the request id from (shown in its errors). */
  readonly requestIdHeader: string;
  /**
   * Whether this protocol's clients, talking to the gateway itself, resend a whole answer whose
   * connection was reset mid-body: Airlock's 502 for one is then theirs to retry (relayFailures.ts).
   */
  readonly resetAnswerResent: boolean;
}

export interface ProtocolStream {
  /** A fresh observer for one of this protocol's streams as the gateway sends it. */
  observer(sink: StreamSink, options: ObserverOptions): StreamObserver;
  /** Masks the key in the fields this protocol's clients assemble across events. */
  keyGuard(masker: KeyMasker): StreamKeyGuard;
  /**
   * Puts a stream together into the one answer it amounts to, for a client that asked for a whole
   * answer from a gateway that streamed anyway (forward/wholeFromStream.ts); absent: passed on as sent.
   */
  wholeAnswer?(options: ObserverOptions): StreamAssembler;
  /**
   * A whole answer as this protocol's stream, for a client that asked for one from a gateway that
   * answered whole (`withUsage`: the client asked for chat's usage chunk); null when it holds no answer.
   */
  answerAsStream?(answer: object, withUsage: boolean): string | null;
}

/** A stream put together event by event as it is read: the events are the ones the stream's other readers parsed. */
export interface StreamAssembler {
  add(event: SseEvent): void;
  /** What the events added so far amount to. */
  result(): StreamedAnswer;
}

/** A stream read whole as its answer. */
export interface StreamedAnswer {
  answer: Record<string, unknown>;
  /** The stream said its answer was whole, as its observer judges a streamed answer. */
  whole: boolean;
  /** It held an answer at all (a chat `[DONE]` alone holds none). */
  answered: boolean;
  /** An error the gateway sent in the stream instead of (or after part of) the answer. */
  error: DeclaredError | null;
}

/** A sink for an observer read only for completeness and errors: what it reports is read from the whole answer instead. */
export const UNREPORTED: StreamSink = { onDelta: () => undefined, onUsage: () => undefined, onModel: () => undefined };

export interface ObserverOptions {
  /** Airlock asked for the usage chunk on the client's behalf: it is kept from the client. */
  dropUsageOnlyChunks: boolean;
  /** The request asked for usage (chat's include_usage): a stream without it is not whole. */
  usageAsked: boolean;
}

/** Where an observer reports what the log and the window need. */
export interface StreamSink {
  onDelta(text: string): void;
  /** What the model wrote besides the answer's text (reasoning, tool-call arguments): billed output all the same. */
  onOtherOutput?(text: string): void;
  /** Billed output that comes with no text to count, only its size in bytes: the decoded `data` of a Messages `redacted_thinking` block. */
  onOpaqueOutput?(bytes: number): void;
  /** A piece of a Messages thinking block's visible thinking, by the block's `index`: billed output, as other output is. */
  onThinking?(blockIndex: number, text: string): void;
  /**
   * The decoded bytes of a thinking block's signature so far, by the block's `index` (a relay may split it, or
   * send it after the next block started): on Claude 4 models it holds the full thinking, billed, of which
   * the visible is a summary or nothing.
   */
  onThinkingSignature?(blockIndex: number, signatureBytes: number): void;
  onUsage(usage: TokenUsage): void;
  /**
   * A count the gateway stated before its final one (Messages' message_start, a running chat count):
   * its input side is exact, so a stream cut before its final usage is estimated from it.
   */
  onStatedUsage?(usage: TokenUsage): void;
  onModel(model: string): void;
}

/** Reads a stream event by event, decides what the client receives, and knows when the answer is whole. */
export interface StreamObserver {
  /** Returns false to keep the event from the client (e.g. a usage chunk the client never asked for). */
  observe(event: SseEvent): boolean;
  /**
   * The answer seen so far is whole: a clean end of the stream now is a complete answer, and a
   * client that leaves now has had all of it. A stream cut by an error never asks.
   */
  readonly complete: boolean;
  /**
   * The protocol has no end marker Airlock reads (passed-through streams): a clean end of the
   * stream is the whole answer, but a client that leaves before it has not had all of it.
   */
  readonly wholeAtCleanEnd: boolean;
  /** An error the upstream sent inside the stream, if any: the stream is then a failure, however it ends. */
  readonly upstreamError: DeclaredError | null;
  /**
   * Whole, the stream may still restate its usage (a chat stream's usage chunk after a count on its finish chunk)
   * until this is true; absent: its usage is settled once it is whole.
   */
  readonly usageSettled?: boolean;
  /** What the answer still lacks to be whole, in the protocol's words: the row's cause when the stream ends cleanly without it. */
  readonly awaiting: string;
}

/** The client protocols Airlock translates to Chat Completions and back, by their `protocolModes` key (the profile schema is the one list). */
export type TranslatedProtocol = keyof Profile['protocolModes'];

/** What the gateway refused of one model's chat requests, learned from its 400s (forward/reasoningEffortRefusals.ts, maxTokensRefusals.ts). */
export interface ModelRefusals {
  /** The `reasoning_effort` levels the gateway refused for this model (chat/reasoningEffort.ts): not sent, with a note. */
  refusedReasoningEfforts: readonly string[];
  /** The gateway refused chat's `max_tokens` for this model (chat/maxTokens.ts): the output bound goes as `max_completion_tokens`. */
  maxTokensRefused: boolean;
}

/** A model the gateway has refused nothing of (yet). */
export const NO_MODEL_REFUSALS: ModelRefusals = { refusedReasoningEfforts: [], maxTokensRefused: false };

export interface ChatRequestOptions extends ModelRefusals {
  upstreamModel: string;
  /** Ask for the usage chunk at the end of a stream (`stream_options.include_usage`). */
  includeUsage: boolean;
  /** The gateway the request goes to (gatewayTagOf): only thinking its own answers carried goes back. */
  gatewayTag: string;
}

/** Translation to and from Chat Completions, for a client protocol the gateway may not speak. */
export interface ChatTranslation {
  /** The key of the profile's `protocolModes` that chooses native or translated (and names the translation's jobs). */
  readonly modeKey: TranslatedProtocol;
  /** The client's request body (parsed) as a Chat Completions request. */
  toChatRequest(body: unknown, options: ChatRequestOptions): ChatRequestTranslation;
  /** Headers only this protocol's API reads (by prefix): dropped when the gateway gets Chat Completions instead. */
  readonly clientHeaderPrefixes: readonly string[];
  /**
   * The answer to this protocol's count endpoint (EndpointKind 'count') from Airlock's own estimate
   * of the input: under translation the gateway has nothing to count with.
   */
  countAnswer?(inputTokens: number): object;
  /**
   * Turns the gateway's Chat Completions answers back into this protocol for the model the client
   * asked for, naming the called tools as the client does (the translation's `clientToolNames`), its
   * thinking marked as the gateway and model `source` names' (returnedReasoning.ts, relayThinking.ts).
   */
  responseTranslator(requestedModel: string, clientToolNames: ClientToolNames, source: AnswerSource): ResponseTranslator;
}

export interface ResponseTranslator {
  /** A fresh translator for one stream: frames out for each chat chunk event. */
  createStream(): StreamEventTranslator;
  /**
   * A whole answer in the client's protocol. `unreportedUsage`: what the answer's usage is billed as when
   * the gateway stated none (Airlock's estimate), stated to the client instead of nothing, as a stream's end does.
   */
  translateJson(chatJson: unknown, unreportedUsage?: TokenUsage | null): object;
  /**
   * A stream's failure in this protocol's words: the `type` that stands for this class, the upstream's
   * status and what the gateway said (a context overflow has its own), and the message its client reads.
   */
  streamFailure(errorClass: ErrorClass, upstreamStatus: number | null, said: GatewaySaid, message: string): StreamFailure;
}
