/**
 * Only these headers are ever logged: enough to debug a client or a rate limit, nothing that can
 * carry a credential (authorization, x-api-key, cookie and anything unknown are dropped).
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
  'user-agent',
  'x-request-id',
]);

const ALLOWED_HEADER_PREFIXES: readonly string[] = ['x-stainless-', 'x-ratelimit-', 'anthropic-ratelimit-'];

export function isAllowedHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return ALLOWED_HEADER_NAMES.has(lower) || ALLOWED_HEADER_PREFIXES.some((prefix) => lower.startsWith(prefix));
}

/** The allowlisted headers, names lower-cased, in a stable (sorted) order. */
export function pickAllowedHeaders(headers: Record<string, string>): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const name of Object.keys(headers).sort()) {
    const value = headers[name];
    if (value !== undefined && isAllowedHeader(name)) picked[name.toLowerCase()] = value;
  }
  return picked;
}
