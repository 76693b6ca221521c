import type { ClientProtocol, ProtocolMode } from '../contracts/usage.ts';
import type { ResponseTranslator } from '../protocols/adapter.ts';
import type { BilledUnits, UploadAudio } from '../contracts/ports.ts';
import type { ArrivingBody } from './arrivingBody.ts';

/** Everything decided about one request before it goes upstream; no stage changes it once made. */
export interface ExchangePlan {
  readonly protocol: ClientProtocol;
  readonly mode: ProtocolMode;
  readonly method: string;
  readonly upstreamPath: string;
  readonly query: string;
  /** With `arriving`, only the bytes for the part read when the plan was made; `byteLength` is the whole's. */
  readonly body: Buffer[] | null;
  readonly byteLength: number;
  /** A large body sent on while it arrives (arrivingBody.ts); absent when it was read whole first. */
  readonly arriving?: ArrivingBody;
  /** The body is JSON, whose bytes bound its tokens; a form's or a file's bytes (audio, images) say nothing of them. */
  readonly textBody: boolean;
  readonly stream: boolean;
  readonly requestedModel: string | null;
  readonly upstreamModel: string | null;
  /**
   * The name aliases and routes resolved to `upstreamModel` (the client's, or a fallback step's):
   * its price stands in where the gateway's id has none, as price lists are often keyed by the names
   * clients send. Null when it names no model.
   */
  readonly routedFrom: string | null;
  /** The usage-only chunk is kept from the client when Airlock asked for it on the client's behalf. */
  readonly usageInjected: boolean;
  /** The gateway was asked for a stream's usage (chat's include_usage), by the client or by Airlock: a stream without it is not whole. */
  readonly usageAsked: boolean;
  /** The body is a Chat Completions request Airlock parsed while planning: the tokenizer can count its input. */
  readonly chatJson: boolean;
  /**
   * Its input tokens' upper bound without the tokenizer (accounting.ts), found while planning when a
   * cap needs it, else null. The parsed body is not kept: it costs several times its bytes in the heap,
   * for as long as the exchange runs (minutes for an agent's stream).
   */
  readonly inputTokensBound: number | null;
  /** The most output tokens the request allows (its max_tokens, per choice), when it states it: held against budget caps. */
  readonly outputTokensBound: number | null;
  /** How many per-call prices it may be billed for (images asked for with `n`): held against budget caps. */
  readonly callsBound: number;
  /** The audio an upload may be billed for (audioDuration.ts); null when it uploads no file. */
  readonly uploadAudio: UploadAudio | null;
  /** The video seconds or speech characters its body states (passthrough/billedUnits.ts): priced before sending and at the end. */
  readonly billedUnits: BilledUnits | null;
  /** The content type the gateway gets instead of the client's (a JSON body declared as a form, text or nothing); null keeps the client's. */
  readonly contentType: string | null;
  /** Client headers (by prefix) the gateway must not get: the client protocol's own, when translated. */
  readonly droppedHeaderPrefixes: readonly string[];
  readonly translator: ResponseTranslator | null;
  /** What translation dropped or changed (unknown fields, unsupported tools), for the log. */
  readonly notes: string[];
}
