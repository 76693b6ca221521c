import type { LocalRefusal } from '../contracts/ports.ts';
import type { Profile } from '../contracts/profile.ts';
import type { BodyDecodingError, BodyTooLargeError } from './requestBody.ts';
import type { NamedCommand } from '../contracts/cli.ts';

/** Where the desktop app is resumed; `airlock serve` has no tray, and names its own way (serve.ts). */
export const DESKTOP_RESUME_WAY = 'from the tray or the window (status bar)';

/**
 * Airlock's own refusals of this stage, with statuses no client retries (see DEFAULT_STATUS in
 * core/errorClass.ts): retrying a paused or stopping Airlock only delays the message.
 */
export function pausedRefusal(resumeWay: string): LocalRefusal {
  return {
    status: 403,
    errorClass: 'proxy_paused',
    message: `Airlock is paused, so nothing is sent to the gateway. Resume it ${resumeWay}, then retry.`,
    headers: { 'x-should-retry': 'false' },
  };
}

export const STOPPING: LocalRefusal = {
  status: 503,
  errorClass: 'proxy_stopping',
  message: 'Airlock is stopping, so this request was not sent to the gateway. Retry once Airlock runs again.',
  headers: { 'x-should-retry': 'false' },
};

/**
 * A WebSocket handshake: Airlock relays HTTP only. 426 is the answer on which Codex goes over to
 * HTTP at once, where it retries any other handshake failure first (openai/codex
 * codex-rs/core/tests/suite: websocket_fallback_switches_to_http_on_upgrade_required_connect).
 * A 426 must name the protocol to use in Upgrade (RFC 9110 section 15.5.22), announced in
 * Connection (section 7.8); Codex reads only the status.
 */
export const WEBSOCKET_UNSUPPORTED: LocalRefusal = {
  status: 426,
  errorClass: 'invalid_request',
  message:
    'Airlock relays requests over HTTP, not over a WebSocket, so nothing was sent to the gateway. Send the request over HTTP ' +
    '(Codex does so by itself after this answer).',
  headers: { upgrade: 'HTTP/1.1', connection: 'Upgrade' },
};

const MIB = 1024 * 1024;

export function bodyLimitBytes(profile: Profile): number {
  return profile.maxRequestBodyMiB * MIB;
}

/** A 413 that names the limit and the three places to raise it. */
export function bodyTooLarge(error: BodyTooLargeError, profile: Profile, command: NamedCommand): LocalRefusal {
  const limit = `${profile.maxRequestBodyMiB} MiB`;
  const what =
    error.declaredBytes === null
      ? `The request body passed ${limit}, the request body limit of profile "${profile.id}", so Airlock stopped reading it`
      : `The request body is ${(error.declaredBytes / MIB).toFixed(1)} MiB, more than ${limit}, the request body limit of profile "${profile.id}", so Airlock did not read it`;
  return {
    status: 413,
    errorClass: 'request_too_large',
    message:
      `${what} and sent nothing to the gateway. Send a smaller request, or raise the limit: in the Airlock window (Profiles, ` +
      `Request body limit), with \`${command(`profile set ${profile.id} --max-body-mib <MiB>`)}\`, or as maxRequestBodyMiB in airlock.json.`,
  };
}

/** A compressed body Airlock could not decode: the client's to fix, so the message says how. */
export function undecodableBody(error: BodyDecodingError): LocalRefusal {
  return {
    status: error.status,
    errorClass: 'invalid_request',
    message: `${error.message}. Nothing was sent to the gateway.`,
  };
}
