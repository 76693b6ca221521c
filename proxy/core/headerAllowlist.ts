import type { IncomingHttpHeaders } from 'node:http';

/**
 * Only these headers are ever logged, of requests and of answers alike: enough to debug a client
 * or a rate limit, nothing that can carry a credential (authorization, x-api-key, cookie and
 * anything unknown are dropped). The proxy picks a request's with it before queueing them for the
 * log, and the log picks again, since answers' headers reach it whole (a replay needs them all).
 */
const ALLOWED_HEADER_NAMES: ReadonlySet<string> = new Set([
  'accept',
  'anthropic-beta',
  'anthropic-version',
  'content-length',
  'content-type',
  'openai-beta',
  'openai-organization',
  'openai-processing-ms',
  'openai-version',
  'retry-after',
  'retry-after-ms',
  // Agents' session ids: what groups a row with its agent's other requests (never a credential).
  'session-id',
  'thread-id',
  'x-claude-code-session-id',
  'user-agent',
  'x-request-id',
]);

const ALLOWED_HEADER_PREFIXES: readonly string[] = ['x-stainless-', 'x-ratelimit-', 'anthropic-ratelimit-'];

export function isAllowedHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return ALLOWED_HEADER_NAMES.has(lower) || ALLOWED_HEADER_PREFIXES.some((prefix) => lower.startsWith(prefix));
}

/** The allowlisted headers, names lower-cased, in a stable (sorted) order; repeated ones (arrays) are not kept. */
export function pickAllowedHeaders(headers: Record<string, string> | IncomingHttpHeaders): Record<string, string> {
  // Only the few names kept are sorted, not all of them.
  const names: string[] = [];
  for (const name in headers) if (typeof headers[name] === 'string' && isAllowedHeader(name)) names.push(name);
  names.sort();
  const picked: Record<string, string> = {};
  for (const name of names) picked[name.toLowerCase()] = headers[name] as string;
  return picked;
}
