import type { BodyView, RequestDetail, RequestSummary } from '../../contracts/requests.ts';
import type { MoneyAmount } from '../../contracts/status.ts';
import type { ErrorClass, ErrorExplanation } from '../../contracts/errors.ts';
import type { StoredRequest, RequestLogRow } from '../../contracts/log.ts';
import { toCny, toUsdApprox } from '../../spend/constants.ts';
import { explainErrorAt } from '../../core/errorExplanations.ts';
import { redactKnownSecrets } from '../../core/redact.ts';

/** Bodies up to this size travel with the detail; larger ones are fetched when opened. */
export const INLINE_BODY_LIMIT_BYTES = 64 * 1024;

export function moneyOf(credits: number): MoneyAmount {
  return { credits, cny: toCny(credits), usdApprox: toUsdApprox(credits) };
}

/**
 * Classes whose name does not read as a title: the detail's heading said "Auth" for a rejected key,
 * "Html instead of json" for any answer that was no API answer (a page, a file, a redirect) and
 * "Timeout total" (the contract's example title is "Key rejected", contracts/errors.ts).
 */
const TITLES: Partial<Record<ErrorClass, string>> = {
  auth: 'Key rejected',
  html_instead_of_json: 'Web page instead of an API answer',
  timeout_connect: 'Connect timeout',
  timeout_idle: 'Idle timeout',
  timeout_total: 'Total timeout',
};

/** "model_not_found" → "Model not found", unless TITLES words it. */
export function errorTitle(errorClass: ErrorClass): string {
  const titled = TITLES[errorClass];
  if (titled !== undefined) return titled;
  const words = errorClass.replaceAll('_', ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * `status`: the answer's, which tells apart refusals of one class (a keychain not answering from a
 * missing key); `message`: the row's, which tells a stream the gateway closed early from one cut.
 */
export function explanationOf(
  errorClass: ErrorClass,
  status: number | null = null,
  message: string | null = null,
  errorCode: string | null = null,
): ErrorExplanation {
  const explained = explainErrorAt(errorClass, status, message, errorCode);
  return { errorClass, title: errorTitle(errorClass), meaning: explained.meaning, fix: explained.fix, retryable: explained.retryable };
}

export function summaryOf(row: RequestLogRow): RequestSummary {
  return {
    id: row.id,
    startedAtMs: row.startedAtMs,
    state: row.state,
    clientName: row.clientName,
    profileId: row.profileId,
    method: row.method,
    clientPath: row.clientPath,
    requestedModel: row.requestedModel,
    responseModel: row.responseModel,
    stream: row.stream,
    status: row.status,
    errorClass: row.errorClass,
    ttfbMs: row.ttfbMs,
    durationMs: row.durationMs,
    inputTokens: row.inputTokens,
    outputTokens: row.outputTokens,
    costCredits: row.costCredits,
    usageEstimated: row.usageSource === 'estimated',
    agentSessionId: row.agentSessionId,
    summary: row.summary,
    ...(row.fallbackChain === undefined ? {} : { fallbackChain: row.fallbackChain }),
    replayOf: row.replayOf,
  };
}

export function bodyViewOf(text: string | null, truncated: boolean, contentType: string | null): BodyView | null {
  if (text === null) return null;
  const sizeBytes = Buffer.byteLength(text);
  return { sizeBytes, truncated, contentType, text: sizeBytes <= INLINE_BODY_LIMIT_BYTES ? text : null };
}

function headerValue(headers: Record<string, string>, name: string): string | null {
  const found = Object.entries(headers).find(([key]) => key.toLowerCase() === name);
  return found ? found[1] : null;
}

/**
 * `knownSecrets` are masked in the gateway's request id once more: a log written before the id was
 * masked may still hold a key there. `replayIds`: the request's replays, which the row does not hold.
 */
export function detailOf({ row, bodies }: StoredRequest, knownSecrets: string[] = [], replayIds: string[] = []): RequestDetail {
  const responseType = bodies ? headerValue(bodies.responseHeaders, 'content-type') : null;
  return {
    ...summaryOf(row),
    upstreamPath: row.upstreamPath,
    upstreamRequestId: row.upstreamRequestId === null ? null : redactKnownSecrets(row.upstreamRequestId, knownSecrets),
    ...(row.gatewayKeys
      ? { gatewayKeys: row.gatewayKeys.map((use) => ({ keyId: use.keyId, label: redactKnownSecrets(use.label, knownSecrets) })) }
      : {}),
    protocol: row.protocol,
    protocolMode: row.protocolMode,
    retries: row.retries,
    modelMismatch: row.modelMismatch,
    upstreamModel: row.upstreamModel,
    errorMessage: row.errorMessage,
    explanation: row.errorClass ? explanationOf(row.errorClass, row.status, row.errorMessage, row.errorCode) : null,
    cachedInputTokens: row.cachedInputTokens,
    reasoningTokens: row.reasoningTokens,
    gatewayCost: row.gatewayCost ?? null,
    requestHeaders: bodies?.requestHeaders ?? {},
    responseHeaders: bodies?.responseHeaders ?? {},
    requestBody: bodies
      ? bodyViewOf(bodies.requestBody, bodies.requestTruncated, headerValue(bodies.requestHeaders, 'content-type'))
      : null,
    responseBody: bodies ? bodyViewOf(bodies.responseBody, bodies.responseTruncated, responseType) : null,
    notes: row.notes,
    streamText: bodies?.streamText ?? null,
    // A stream's answer is its events: responseTruncated says they were cut at the cap.
    streamEvents: bodies ? bodyViewOf(bodies.rawEvents, bodies.responseTruncated, 'text/event-stream') : null,
    streamEventOffsetsMs: bodies?.rawEventOffsetsMs ?? null,
    replayIds,
  };
}
