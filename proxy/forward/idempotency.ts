import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { offsetsInChunks } from '../core/chunkSearch.ts';
import type { KeyMasker } from '../core/keyMasker.ts';
import type { StoredResponse } from '../contracts/idempotencyStore.ts';
import type { IdempotencyCache, IdempotencyClaim, IdempotencyTicket } from '../spend/idempotencyCache.ts';
import { idempotencyKeyOf, isSideEffectRequest } from '../spend/idempotencyRequest.ts';
import { firstOutcome } from './upstreamExecution.ts';
import { piecesIn } from './bodyRewrite.ts';
import { ownTextBuffer } from './capture.ts';
import { formBoundaryOf } from './multipartForm.ts';
import type { RequestTrace } from './trace.ts';
import { writeAnswerHead } from './answerHead.ts';

/**
 * docs/gateway-spec.md §3: an image or video creation may have run even when the client saw a failure, so
 * a repeat with the same idempotency key is answered with the first answer, never sent again.
 */
export function claimIdempotency(
  cache: IdempotencyCache | undefined,
  req: IncomingMessage,
  res: ServerResponse,
  upstreamPath: string,
  request: { profileId: string; requestId: string; maxWaitMs: number; stopping: AbortSignal; body: readonly Buffer[] | null },
): Promise<IdempotencyClaim> | null {
  const method = req.method ?? 'GET';
  if (!cache || !isSideEffectRequest(method, upstreamPath)) return null;
  const key = idempotencyKeyOf(req.headers);
  if (!key) return null;
  const fingerprint = requestFingerprint(method, upstreamPath, request.body ?? [], req.headers['content-type']);
  return claimWhileClientStays(cache, res, key, { ...request, fingerprint });
}

/**
 * What makes two keyed creations the same request: method, path and body. Only keyed creations are
 * hashed, so other requests pay nothing. A form's boundary is left out: SDKs draw a new one for each
 * attempt (undici's FormData and httpx both pick it at random when the body is encoded), so a retry
 * of the same upload differs in it alone.
 */
function requestFingerprint(method: string, upstreamPath: string, body: readonly Buffer[], contentType: string | undefined): string {
  const hash = createHash('sha256').update(`${method.toUpperCase()} ${upstreamPath}\u0000`);
  const boundary = formBoundaryOf(contentType);
  if (boundary === null) {
    for (const chunk of body) hash.update(chunk);
    return hash.digest('hex');
  }
  const delimiter = Buffer.from(`--${boundary}`);
  let from = 0;
  for (const at of offsetsInChunks(body, delimiter, Number.POSITIVE_INFINITY)) {
    for (const piece of piecesIn(body, { start: from, end: at })) hash.update(piece);
    hash.update('--\u0000');
    from = at + delimiter.length;
  }
  for (const piece of piecesIn(body, { start: from, end: Number.POSITIVE_INFINITY })) hash.update(piece);
  return hash.digest('hex');
}

/** A repeat waiting for its first stops waiting when its own client leaves, or the proxy stops. */
async function claimWhileClientStays(
  cache: IdempotencyCache,
  res: ServerResponse,
  key: string,
  request: { profileId: string; requestId: string; maxWaitMs: number; stopping: AbortSignal; fingerprint: string },
): Promise<IdempotencyClaim> {
  const clientGone = new AbortController();
  const onClose = (): void => clientGone.abort();
  if (res.closed) clientGone.abort();
  else res.once('close', onClose);
  try {
    const signal = AbortSignal.any([clientGone.signal, request.stopping]);
    return await cache.claim(request.profileId, key, request.requestId, {
      maxWaitMs: request.maxWaitMs,
      signal,
      requestFingerprint: request.fingerprint,
    });
  } finally {
    res.off('close', onClose);
  }
}

export function sendReplay(res: ServerResponse, stored: StoredResponse): void {
  writeAnswerHead(res, stored.status, { ...stored.headers, 'content-length': String(stored.body.length) });
  res.end(stored.body);
}

/**
 * A first that certainly never ran at the gateway is given up, so a repeat may be sent; one that
 * got the gateway's whole answer is kept as its client received it; one that may have run but was
 * cut off is kept as unknown, so a repeat gets a 409 (firstOutcome in upstreamExecution.ts decides).
 */
export function settleIdempotency(ticket: IdempotencyTicket, trace: RequestTrace, keyMasker: KeyMasker): void {
  const outcome = firstOutcome({ mayHaveRun: trace.upstreamMayHaveRun, answerComplete: trace.upstreamAnswerComplete });
  if (outcome === 'not_run') {
    ticket.abandon();
    return;
  }
  if (outcome === 'unknown') {
    ticket.outcomeUnknown();
    return;
  }
  const answered = trace.errorClass === null;
  const body = answered ? (trace.responseBody.toBuffer() ?? Buffer.alloc(0)) : ownTextBuffer(trace.errorMessage ?? '');
  // Kept masked with the keys of the step that answered: a repeat is masked again only with the
  // request's own profile's keys, and a fallback profile's gateway may have echoed its key.
  const headers: Record<string, string> = answered ? { ...trace.responseHeaders } : { 'content-type': 'application/json' };
  keyMasker.maskHeaders(headers);
  ticket.complete({
    status: trace.status,
    headers,
    body: keyMasker.maskBytes(body),
    bodyTruncated: answered && trace.responseBody.truncated,
  });
}
