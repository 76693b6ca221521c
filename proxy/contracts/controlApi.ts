/**
 * The control API between the window (renderer/) and the proxy: its paths, its session and its
 * error shape. Every body is plain JSON, typed by the file of its topic (status.ts, requests.ts,
 * spend.ts, profileViews.ts, models.ts, clientTokens.ts, liveEvents.ts and the feature files).
 * Shared by proxy/app/control (which serves it) and renderer/src/api/client.ts (the only code in
 * the window that calls it). No Node types here.
 */

export const CONTROL_PREFIX = '/_airlock';
export const CONTROL_API_PREFIX = `${CONTROL_PREFIX}/api`;
/** Page that receives `#code=<one-time code>` from the URL `airlock serve` prints. */
export const CONTROL_LOGIN_PATH = `${CONTROL_PREFIX}/login`;
export const CONTROL_SESSION_COOKIE = 'airlock_session';

/** POST /login-links (control token only): a fresh sign-in link, for `airlock window` once the printed one is used or expired. */
export interface LoginLinkResponse {
  url: string;
}
/** Live events are merged server-side and sent at most once per this interval. */
export const LIVE_FRAME_INTERVAL_MS = 100;

/** Every error from the control API has this shape (and a 4xx/5xx status). */
export interface ApiErrorBody {
  error: { code: ApiErrorCode; message: string; field?: string };
}
export type ApiErrorCode = 'unauthorized' | 'not_found' | 'invalid' | 'conflict' | 'keychain_unavailable' | 'unavailable' | 'internal';

/** POST /session: a one-time login code, or the control token itself typed by the user. */
export type SessionRequest = { code: string } | { controlToken: string };
