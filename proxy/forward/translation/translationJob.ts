import type { TranslatedProtocol } from '../../protocols/adapter.ts';
import { translationFor } from '../../protocols/registry.ts';
import type { ChatRequestTranslation } from '../../protocols/requestResult.ts';
import { ownTextBuffer } from '../capture.ts';

export type { TranslatedProtocol };

/** The Chat Completions request for a client's body (already parsed) in a protocol Airlock translates. */
export function chatRequestFor(protocol: TranslatedProtocol, body: unknown, upstreamModel: string): ChatRequestTranslation {
  return translationFor(protocol).toChatRequest(body, { upstreamModel, includeUsage: true });
}

/** A client body, as its bytes, to translate. */
export interface TranslationJob {
  protocol: TranslatedProtocol;
  json: Uint8Array;
  upstreamModel: string;
}

/** The Chat Completions body to send, serialized; or why the client's body cannot be translated. */
export type TranslatedBody = { ok: true; chatJson: Buffer; stream: boolean; notes: string[] } | { ok: false; message: string };

/**
 * Parses, translates and serializes a body in one go: the translation thread's whole job, also run
 * here when the thread is not available. The answer's bytes own their memory, so they can be moved
 * from the thread without taking a pooled buffer with them.
 */
export function translateJsonBytes(job: TranslationJob): TranslatedBody {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(job.json.buffer, job.json.byteOffset, job.json.byteLength).toString('utf8'));
  } catch (error) {
    return { ok: false, message: `the request body is not valid JSON (${(error as Error).message})` };
  }
  const request = chatRequestFor(job.protocol, value, job.upstreamModel);
  if (!request.ok) return { ok: false, message: request.message };
  return { ok: true, chatJson: ownTextBuffer(JSON.stringify(request.chatBody)), stream: request.stream, notes: request.notes };
}
