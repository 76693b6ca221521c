import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { ClientTokenRecord } from '../contracts/config.ts';

/** Recognisable in a config file or a leak scanner, and never confused with a gateway key. */
export const CLIENT_TOKEN_PREFIX = 'alk_';
const TOKEN_BYTES = 32;

/** A fresh 256-bit client token. */
export function generateToken(prefix: string = CLIENT_TOKEN_PREFIX): string {
  return `${prefix}${randomBytes(TOKEN_BYTES).toString('base64url')}`;
}

export function sha256Hex(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** What the config file keeps of a new token: its hash and last four characters, never the token. */
export function tokenRecord(name: string, token: string, profileId: string | null, createdAtMs: number): ClientTokenRecord {
  return { name, profileId, tokenSha256: sha256Hex(token), lastFour: token.slice(-4), createdAtMs };
}

/**
 * The tokens a request presents, in order: `Authorization: Bearer` (OpenAI-style clients), then
 * `x-api-key` (Anthropic-style clients).
 */
export function presentedTokens(headers: IncomingHttpHeaders): string[] {
  const candidates: string[] = [];
  const authorization = headers.authorization;
  const bearer = authorization ? /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1] : undefined;
  if (bearer) candidates.push(bearer);
  const apiKey = headers['x-api-key'];
  const apiKeyValue = (Array.isArray(apiKey) ? apiKey[0] : apiKey)?.trim();
  if (apiKeyValue) candidates.push(apiKeyValue);
  return candidates;
}

/**
 * The record whose hash equals the token's. Compares SHA-256 digests with timingSafeEqual and
 * always walks every record, so neither the token nor which record matched leaks through timing.
 */
export function findTokenRecord(token: string, records: readonly ClientTokenRecord[]): ClientTokenRecord | null {
  const presented = createHash('sha256').update(token, 'utf8').digest();
  let match: ClientTokenRecord | null = null;
  for (const record of records) {
    const stored = Buffer.from(record.tokenSha256, 'hex');
    if (stored.length === presented.length && timingSafeEqual(stored, presented) && match === null) match = record;
  }
  return match;
}

/** Constant-time equality of two secrets of any length (compared through their hashes). */
export function secretsEqual(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}
