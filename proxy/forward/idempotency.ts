import type { KeyMasker } from '../core/keyMasker.ts';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { StoredResponse } from '../contracts/idempotencyStore.ts';
import type { IdempotencyCache, IdempotencyClaim, IdempotencyTicket } from '../spend/idempotencyCache.ts';
import { idempotencyKeyOf, isSideEffectRequest } from '../spend/idempotencyRequest.ts';
import { firstOutcome } from './upstreamExecution.ts';
import { ownTextBuffer } from './capture.ts';
import type { RequestTrace } from './trace.ts';

/**
 * docs/gateway-spec.md §3: an image or video creation may have run even when the client saw a failure, so
 * a repeat with the same idempotency key is answered with the first answer, never sent again.
 */
export function claimIdempotency(
  cache: IdempotencyCache | undefined,
  req: IncomingMessage,
  res: ServerResponse,
  upstreamPath: string,
  request: { profileId: string; requestId: string; maxWaitMs: number; stopping: AbortSignal },
): Promise<IdempotencyClaim> | null {
  if (!cache || !isSideEffectRequest(req.method ?? 'GET', upstreamPath)) return null;
  const key = idempotencyKeyOf(req.headers);
  return key ? claimWhileClientStays(cache, res, key, request) : null;
}

/** A repeat waiting for its first stops waiting when its own client leaves, or the proxy stops. */
async function claimWhileClientStays(
  cache: IdempotencyCache,
  res: ServerResponse,
  key: string,
  request: { profileId: string; requestId: string; maxWaitMs: number; stopping: AbortSignal },
): Promise<IdempotencyClaim> {
  const clientGone = new AbortController();
  const onClose = (): void => clientGone.abort();
  if (res.closed) clientGone.abort();
  else res.once('close', onClose);
  try {
    const signal = AbortSignal.any([clientGone.signal, request.stopping]);
    return await cache.claim(request.profileId, key, request.requestId, { maxWaitMs: request.maxWaitMs, signal });
  } finally {
    res.off('close', onClose);
  }
}

export function sendReplay(res: ServerResponse, stored: StoredResponse): void {
  res.writeHead(stored.status, { ...stored.headers, 'content-length': String(stored.body.length) });
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
  keyMasker.maskHeaderValues(headers);
  ticket.complete({
    status: trace.status,
    headers,
    body: keyMasker.maskBytes(body),
    bodyTruncated: answered && trace.responseBody.truncated,
  });
}
