import type { IncomingMessage, ServerResponse } from 'node:http';
import type { IdempotencyCache, IdempotencyClaim, IdempotencyTicket, StoredResponse } from '../budget/idempotencyCache.ts';
import { idempotencyKeyOf, isSideEffectRequest } from '../budget/idempotencyRequest.ts';
import { ownTextBuffer } from './capture.ts';
import type { RequestTrace } from './trace.ts';

/**
 * docs/gateway-spec.md §3: an image or video creation may have run even when the client saw a failure, so
 * a repeat with the same idempotency key is answered with the first answer, never sent again.
 */
export function claimIdempotency(
  cache: IdempotencyCache | undefined,
  req: IncomingMessage,
  upstreamPath: string,
  request: { profileId: string; requestId: string },
): Promise<IdempotencyClaim> | null {
  if (!cache || !isSideEffectRequest(req.method ?? 'GET', upstreamPath)) return null;
  const key = idempotencyKeyOf(req.headers);
  return key ? cache.claim(request.profileId, key, request.requestId) : null;
}

export function sendReplay(res: ServerResponse, stored: StoredResponse): void {
  res.writeHead(stored.status, { ...stored.headers, 'content-length': String(stored.body.length) });
  res.end(stored.body);
}

/** Only a connection the gateway never accepted is certainly not executed; anything else is kept. */
export function settleIdempotency(ticket: IdempotencyTicket, trace: RequestTrace): void {
  if (trace.ttfbMs === null && (trace.errorClass === 'timeout_connect' || trace.errorClass === 'client_aborted' || trace.status === 0)) {
    ticket.abandon();
    return;
  }
  const answered = trace.ttfbMs !== null && trace.errorClass === null;
  const body = answered ? (trace.responseBody.toBuffer() ?? Buffer.alloc(0)) : ownTextBuffer(trace.errorMessage ?? '');
  ticket.complete({
    status: trace.status,
    headers: answered ? trace.responseHeaders : { 'content-type': 'application/json' },
    body,
    bodyTruncated: answered && trace.responseBody.truncated,
  });
}
