import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { ClientProtocol } from '../contracts/usage.ts';
import { explainError, statusForClass, type ExchangeFailureClass } from '../core/errorClass.ts';
import { isUnknownIssuerCode } from '../core/osCaStore.ts';
import type { KeyMasker } from '../core/keyMasker.ts';
import { adapterNamed } from '../protocols/registry.ts';
import { idempotencyKeyOf, isSideEffectRequest } from '../spend/idempotencyRequest.ts';
import { answeredStatus, errorBodyFor, errorStatusFor, sendJson, type ErrorDetail } from './replies.ts';
import type { RequestTrace } from './trace.ts';

export interface ExchangeFailure {
  errorClass: ExchangeFailureClass;
  /** The gateway's status, when it answered. */
  upstreamStatus: number | null;
  detail: ErrorDetail;
  /** The gateway's Retry-After, passed on as sent (seconds or an HTTP date). */
  retryAfter?: string | null;
  /** The gateway's `retry-after-ms`, passed on as sent: the SDKs read it before Retry-After. */
  retryAfterMs?: string | null;
  /** The gateway said `x-should-retry: false`: the client is told the same. */
  refusesRetry?: boolean;
  /** The gateway's id for the attempt the client sees, key already masked. */
  upstreamRequestId?: string | null;
  /** What happened, for the row, where the client's error (its cause and fix) is not what to keep. */
  cause?: string;
}

/**
 * Answers a failed exchange in the client's protocol. What lets the client act goes with it: the
 * gateway's Retry-After (a client that retries by itself waits as long as the gateway asked), its
 * request id as the header the client's SDK reads (`x-request-id` for OpenAI's, `request-id` for
 * Anthropic's) and in the body, and `x-should-retry: false` for a failure no retry fixes, which
 * the OpenAI and Anthropic SDKs and Claude Code obey (also when the gateway itself said so: without
 * Airlock the client would have stopped there).
 */
export function replyFailure(
  res: ServerResponse,
  trace: RequestTrace,
  protocol: ClientProtocol,
  failure: ExchangeFailure,
  knownSecrets: readonly string[],
): void {
  const { errorClass, upstreamRequestId } = failure;
  const mayHaveCreated = unkeyedCreationMayHaveRun(res, trace);
  const ownStatus = statusForClass(errorClass, failure.upstreamStatus);
  const status = errorStatusFor(protocol, errorClass, ownStatus);
  const detail: ErrorDetail = {
    ...failure.detail,
    knownSecrets: [...knownSecrets],
    ...(upstreamRequestId ? { upstreamRequestId } : {}),
    ...(mayHaveCreated ? { mayHaveCreated } : {}),
  };
  const body = errorBodyFor(protocol, status, errorClass, detail);
  const headers: Record<string, string> = {};
  if (failure.retryAfter) headers['retry-after'] = failure.retryAfter;
  if (failure.retryAfterMs) headers['retry-after-ms'] = failure.retryAfterMs;
  if (upstreamRequestId) headers[adapterNamed(protocol).errors.requestIdHeader] = upstreamRequestId;
  const untrustedCertificate = errorClass === 'network' && isUnknownIssuerCode(failure.detail.errorCode);
  const final =
    !explainError(errorClass, failure.detail.errorCode).retryable ||
    errorClass === 'proxy_stopping' ||
    failure.refusesRetry === true ||
    untrustedCertificate ||
    mayHaveCreated;
  if (final) headers['x-should-retry'] = 'false';
  const sentStatus = answeredStatus(res, status, final);
  trace.failed(errorClass, failure.cause ?? JSON.stringify(body), sentStatus, failure.detail.errorCode);
  sendJson(res, sentStatus, body, headers);
}

/**
 * An image or video creation without an idempotency key that the gateway may have run (a 5xx, a
 * break after the request was written, a timeout while it ran: upstreamExecution.ts). Airlock does
 * not resend it (retryPolicy.ts); its client must not either, or one failure the user sees is up to
 * three paid creations: the OpenAI SDK resends a 5xx or a connection failure twice by default and
 * sends no key of its own (openai 6.x client.js: `idempotencyHeader` unset, shouldRetry), so the
 * answer says `x-should-retry: false`, which it obeys. A 4xx ran nothing and stays the client's to
 * retry (a 429 after its wait); a keyed creation's repeat is answered from its first (keyedCreations).
 */
function unkeyedCreationMayHaveRun(res: ServerResponse, trace: RequestTrace): boolean {
  const request = res.req as ServerResponse['req'] | undefined;
  if (typeof request?.method !== 'string' || typeof request.url !== 'string' || !isSideEffectRequest(request.method, request.url))
    return false;
  return idempotencyKeyOf(request.headers) === null && trace.upstreamMayHaveRun;
}

/** The gateway's error answer as the log keeps it: its headers and the start of its body, key masked. */
export function upstreamErrorRecord(
  headers: IncomingHttpHeaders,
  bodyText: string,
  keyMasker: KeyMasker,
): { headers: Record<string, string>; body: Buffer } {
  const copy: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) copy[name] = value;
  keyMasker.maskHeaders(copy);
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(copy)) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  return { headers: flat, body: keyMasker.maskBytes(Buffer.from(bodyText)) };
}
