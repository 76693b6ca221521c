import { createHash, randomBytes } from 'node:crypto';
import { ControlTokens, createControlTokenCheck } from '../../http/controlToken.ts';
import { CONTROL_SESSION_COOKIE, CONTROL_PREFIX } from '../../contracts/controlApi.ts';
import type { SessionPersistence } from './sessionFile.ts';

/** The code in the printed login URL works once, and only this long (long enough to click it). */
export const LOGIN_CODE_TTL_MS = 2 * 60_000;
/** A browser session lasts a working day; after that, `airlock serve` prints a fresh link on restart. */
export const SESSION_TTL_MS = 12 * 60 * 60_000;

export interface ControlSessionsOptions {
  /** One token, or those a run takes (this run's and, once a late keychain answers, the one it holds). */
  controlToken: string | ControlTokens;
  nowMs?: () => number;
  /** Keeps the sessions across restarts; without it they live in memory only. */
  persistence?: SessionPersistence;
}

export const hashOf = (secret: string): string => createHash('sha256').update(secret).digest('hex');
const newSecret = (): string => randomBytes(32).toString('base64url');

/**
 * Who may use the control API: Electron's window with the control token as Bearer, or a browser
 * with a session cookie it got by exchanging a one-time login code (or the control token) once.
 * Codes and sessions are kept hashed; sessions also in the persistence given (the data directory),
 * so a restart does not sign the browser out. Codes stay in memory: they last two minutes.
 */
export class ControlSessions {
  readonly #checkBearer: (authorization: string | undefined) => boolean;
  readonly #controlTokens: ControlTokens;
  readonly #nowMs: () => number;
  readonly #codes = new Map<string, number>();
  readonly #sessions: Map<string, number>;
  readonly #persistence: SessionPersistence | undefined;

  constructor(options: ControlSessionsOptions) {
    this.#controlTokens = typeof options.controlToken === 'string' ? new ControlTokens(options.controlToken) : options.controlToken;
    this.#checkBearer = createControlTokenCheck(this.#controlTokens);
    this.#nowMs = options.nowMs ?? Date.now;
    this.#persistence = options.persistence;
    this.#sessions = this.#persistence?.load() ?? new Map();
  }

  /** A fresh one-time code for a login URL. */
  issueLoginCode(): string {
    this.#dropExpired();
    const code = newSecret();
    this.#codes.set(hashOf(code), this.#nowMs() + LOGIN_CODE_TTL_MS);
    return code;
  }

  /** Trades a code (once, before it expires) for a new session id; null when it is not valid. */
  exchangeCode(code: string): string | null {
    this.#dropExpired();
    const key = hashOf(code);
    if (!this.#codes.has(key)) return null;
    this.#codes.delete(key);
    return this.#newSession();
  }

  /** The control token typed into the sign-in page also opens a session. */
  exchangeControlToken(token: string): string | null {
    return this.#controlTokens.matches(token) ? this.#newSession() : null;
  }

  /** The control token itself, not a session: what may mint a way in (a session could renew itself forever). */
  hasControlToken(authorization: string | undefined): boolean {
    return authorization !== undefined && this.#checkBearer(authorization);
  }

  isAuthorized(authorization: string | undefined, cookieHeader: string | undefined): boolean {
    if (authorization !== undefined) return this.#checkBearer(authorization);
    const sessionId = sessionIdFromCookie(cookieHeader);
    if (sessionId === null) return false;
    const expiresAtMs = this.#sessions.get(hashOf(sessionId));
    return expiresAtMs !== undefined && expiresAtMs > this.#nowMs();
  }

  #newSession(): string {
    const sessionId = newSecret();
    this.#dropExpired();
    this.#sessions.set(hashOf(sessionId), this.#nowMs() + SESSION_TTL_MS);
    this.#persistence?.save(this.#sessions);
    return sessionId;
  }

  #dropExpired(): void {
    const now = this.#nowMs();
    for (const [key, expiresAtMs] of this.#codes) if (expiresAtMs <= now) this.#codes.delete(key);
    for (const [key, expiresAtMs] of this.#sessions) if (expiresAtMs <= now) this.#sessions.delete(key);
  }
}

export function sessionIdFromCookie(cookieHeader: string | undefined): string | null {
  if (!cookieHeader) return null;
  for (const part of cookieHeader.split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === CONTROL_SESSION_COOKIE) return value.join('=') || null;
  }
  return null;
}

/** HttpOnly: no script can read it; SameSite=Strict: no other site can send it; scoped to the control path. */
export function sessionCookie(sessionId: string): string {
  return `${CONTROL_SESSION_COOKIE}=${sessionId}; HttpOnly; SameSite=Strict; Path=${CONTROL_PREFIX}; Max-Age=${SESSION_TTL_MS / 1000}`;
}
