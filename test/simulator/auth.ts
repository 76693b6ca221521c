import type { IncomingHttpHeaders } from 'node:http';

/**
 * docs/gateway-spec.md §5: only the exact form `Bearer <key>` authenticates. A doubled Bearer, a missing
 * space, quotes or any extra whitespace fail, so comparison is exact string equality.
 */
export function isAuthorized(authorization: string | undefined, validKeys: readonly string[]): boolean {
  if (authorization === undefined) return false;
  return validKeys.some((key) => authorization === `Bearer ${key}`);
}

/** The credential of `Bearer <credential>` as sent, or null: what a careless gateway could echo. */
export function bearerCredentialOf(authorization: string | undefined): string | null {
  const match = /^Bearer (\S+)$/.exec(authorization ?? '');
  return match?.[1] ?? null;
}

const SECRET_HEADER_NAMES = new Set(['authorization', 'proxy-authorization', 'x-api-key', 'api-key']);
const MIN_LENGTH_FOR_PREFIX = 16;
const VISIBLE_SUFFIX_LENGTH = 4;
const VISIBLE_PREFIX_LENGTH = 3;

/** Shows a secret's last 4 characters (and its first 3 when long enough to be a real key). */
export function maskSecret(secret: string): string {
  if (secret.length <= VISIBLE_SUFFIX_LENGTH * 2) return '…';
  const prefix = secret.length >= MIN_LENGTH_FOR_PREFIX ? secret.slice(0, VISIBLE_PREFIX_LENGTH) : '';
  return `${prefix}…${secret.slice(-VISIBLE_SUFFIX_LENGTH)}`;
}

/** `Bearer sk-airlock…a8c1` -> `Bearer sk-…a8c1`; keeps the scheme word so tests can see its form. */
export function maskAuthorization(value: string): string {
  const match = /^(\S+)( +)(.*)$/s.exec(value);
  if (match === null) return maskSecret(value);
  const [, scheme = '', spaces = '', credential = ''] = match;
  return `${scheme}${spaces}${maskSecret(credential)}`;
}

/** A copy of the headers with every secret-bearing value masked. */
export function maskSecretHeaders(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const masked: IncomingHttpHeaders = { ...headers };
  for (const name of Object.keys(masked)) {
    if (!SECRET_HEADER_NAMES.has(name)) continue;
    const value = masked[name];
    if (typeof value === 'string') masked[name] = name.endsWith('authorization') ? maskAuthorization(value) : maskSecret(value);
  }
  return masked;
}
