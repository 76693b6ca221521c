import type { ModelRefusals, TranslatedProtocol } from '../../protocols/adapter.ts';
import { nativeRequestFor, translationFor } from '../../protocols/registry.ts';
import { isRecord } from '../../core/isRecord.ts';
import { jsonParseFailure } from '../../core/jsonSyntaxError.ts';
import type { ChatRequestTranslation, ClientToolNames } from '../../protocols/requestResult.ts';
import { ownTextBuffer } from '../capture.ts';

export type { TranslatedProtocol };

/**
 * The Chat Completions request for a client's body (already parsed) in a protocol Airlock
 * translates; `refusals`: what the gateway refused of the model's requests before (ModelRefusals);
 * `gatewayTag`: the gateway it goes to (gatewayTagOf), which alone gets back the thinking its answers carried.
 */
export function chatRequestFor(
  protocol: TranslatedProtocol,
  body: unknown,
  upstreamModel: string,
  refusals: ModelRefusals,
  gatewayTag: string,
): ChatRequestTranslation {
  const { refusedReasoningEfforts, maxTokensRefused } = refusals;
  return translationFor(protocol).toChatRequest(body, {
    upstreamModel,
    includeUsage: true,
    refusedReasoningEfforts,
    maxTokensRefused,
    gatewayTag,
  });
}

/** A client body, as its bytes, to translate; or, `native`, to send in its own protocol without what Airlock made under translation. */
export interface TranslationJob {
  protocol: TranslatedProtocol;
  json: Uint8Array;
  upstreamModel: string;
  native: boolean;
  /** What the gateway refused of the model's requests before (a translated job only). */
  refusals: ModelRefusals;
  /** The gateway a translated job goes to (gatewayTagOf). */
  gatewayTag: string;
}

/** The body to send (Chat Completions, or the client's protocol for a native job), serialized; or why it cannot be. */
export type TranslatedBody =
  | { ok: true; sentJson: Buffer; stream: boolean; notes: string[]; clientToolNames?: ClientToolNames }
  | { ok: false; message: string; unfixable?: true };

/**
 * Parses, translates and serializes a body in one go: the translation thread's whole job, also run
 * here when the thread is not available. The answer's bytes own their memory, so they can be moved
 * from the thread without taking a pooled buffer with them.
 */
export function translateJsonBytes(job: TranslationJob): TranslatedBody {
  let value: unknown;
  const textOf = (): string => Buffer.from(job.json.buffer, job.json.byteOffset, job.json.byteLength).toString('utf8');
  try {
    value = JSON.parse(textOf());
  } catch (error) {
    // Decoded again on this failure only: a text kept in scope would be held through the whole translation.
    return { ok: false, message: `the request body is not valid JSON (${jsonParseFailure(textOf(), error)})` };
  }
  if (job.native) return nativeBody(job.protocol, value, job.upstreamModel);
  const request = chatRequestFor(job.protocol, value, job.upstreamModel, job.refusals, job.gatewayTag);
  if (!request.ok) return { ok: false, message: request.message, ...(request.unfixable ? { unfixable: true } : {}) };
  const sentJson = ownTextBuffer(JSON.stringify(request.chatBody));
  const { stream, notes, clientToolNames } = request;
  return { ok: true, sentJson, stream, notes, ...(clientToolNames ? { clientToolNames } : {}) };
}

/** A native body without the parts Airlock made under translation (NativeRequestCleanup), with the gateway's model id. */
export function nativeBody(protocol: TranslatedProtocol, value: unknown, upstreamModel: string): TranslatedBody {
  if (!isRecord(value)) return { ok: false, message: 'the request body must be a JSON object' };
  const cleaned = nativeRequestFor(protocol)?.clean(value) ?? null;
  const body: Record<string, unknown> = { ...(cleaned?.body ?? value), model: upstreamModel };
  return { ok: true, sentJson: ownTextBuffer(JSON.stringify(body)), stream: body.stream === true, notes: cleaned ? [cleaned.note] : [] };
}
