import type { UpstreamErrorClass } from '../../contracts/errors.ts';
import { classifyNetworkFailure, classifyUpstreamResponse, networkFailureCode } from '../../core/errorClass.ts';
import type { UpstreamTarget } from '../../contracts/ports.ts';
import { fetchUpstreamText } from '../../forward/upstreamClient.ts';
import { proxyUrlOf } from '../../forward/upstreamAgents.ts';
import { proxyFailureOf } from '../../forward/proxyFailures.ts';

/** A test from the window should answer within this, even when the profile allows long streams. */
export const PROBE_TIMEOUT_MS = 30_000;

export interface ProbeResult {
  status: number | null;
  errorClass: UpstreamErrorClass | null;
  durationMs: number;
  /** The response body (JSON text on success); '' after a network failure. */
  bodyText: string;
  /** After a network failure, its code (`ENOTFOUND`, a TLS verdict…) where it has one. */
  networkCode?: string;
}

/**
 * One small request straight to the gateway with the profile's key, outside the proxy pipeline
 * (no retries, no log row): the Test button and the model list use it.
 */
export async function probeGateway(target: UpstreamTarget, method: 'GET' | 'POST', endpoint: string, body?: unknown): Promise<ProbeResult> {
  const startedAtMs = performance.now();
  const elapsed = () => Math.round(performance.now() - startedAtMs);
  const headers: Record<string, string> = { authorization: `Bearer ${target.apiKey}`, accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  try {
    const answer = await fetchUpstreamText({
      url: `${target.profile.baseUrl}${endpoint}`,
      method,
      headers,
      body: body === undefined ? null : [Buffer.from(JSON.stringify(body))],
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
      connectTimeoutMs: target.profile.timeouts.connectTimeoutMs,
      idleTimeoutMs: Math.min(target.profile.timeouts.idleTimeoutMs, PROBE_TIMEOUT_MS),
    });
    const { statusCode, bodyText } = answer;
    const contentType = headerText(answer.headers['content-type']);
    const errorClass = classifyUpstreamResponse({ status: statusCode, contentType, bodyText, expectJson: true });
    return { status: statusCode, errorClass, durationMs: elapsed(), bodyText };
  } catch (error) {
    const code = networkFailureCode(error);
    // Where the proxy in between failed, its own cause and fix: not the base URL's.
    const networkCode = proxyFailureOf(error, code, proxyUrlOf(target.profile.baseUrl), target.profile.baseUrl)?.errorCode ?? code;
    return {
      status: null,
      errorClass: classifyNetworkFailure(error),
      durationMs: elapsed(),
      bodyText: '',
      ...(networkCode === null ? {} : { networkCode }),
    };
  }
}

function headerText(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? (value[0] ?? null) : value;
}
