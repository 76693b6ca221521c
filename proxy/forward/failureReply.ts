import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { ClientProtocol } from '../contracts/usage.ts';
import { explainError, statusForClass, type ExchangeFailureClass } from '../core/errorClass.ts';
import { isUnknownIssuerCode } from '../core/osCaStore.ts';
import type { KeyMasker } from '../core/keyMasker.ts';
import { adapterNamed } from '../protocols/registry.ts';
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
  const ownStatus = statusForClass(errorClass, failure.upstreamStatus);
  const status = errorStatusFor(protocol, errorClass, ownStatus);
  const detail: ErrorDetail = { ...failure.detail, knownSecrets: [...knownSecrets], ...(upstreamRequestId ? { upstreamRequestId } : {}) };
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
    untrustedCertificate;
  if (final) headers['x-should-retry'] = 'false';
  const sentStatus = answeredStatus(res, status, final);
  trace.failed(errorClass, failure.cause ?? JSON.stringify(body), sentStatus, failure.detail.errorCode);
  sendJson(res, sentStatus, body, headers);
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
