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
  // The gateway's clock when it answered: what tells a start with a clock behind from rows written
  // with one ahead (store/futureRows.ts), and when a request really ran.
  'date',
  'openai-beta',
  'openai-organization',
  'openai-processing-ms',
  'openai-version',
  'retry-after',
  'retry-after-ms',
  // Agents' session ids: what groups a row with its agent's other requests (never a credential).
  'session-id',
  'session_id',
  'thread-id',
  'x-claude-code-session-id',
  'x-parent-session-id',
  'x-session-affinity',
  'x-session-id',
  'user-agent',
  'x-request-id',
]);

const ALLOWED_HEADER_PREFIXES: readonly string[] = ['x-stainless-', 'x-ratelimit-', 'anthropic-ratelimit-'];

export function isAllowedHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return ALLOWED_HEADER_NAMES.has(lower) || ALLOWED_HEADER_PREFIXES.some((prefix) => lower.startsWith(prefix));
}

/**
 * Each name seen, as it is logged (lower-cased) or null when it is not: the same few names come with
 * every request, and both threads pick (the forwarding thread a request's, the log thread both).
 * Bounded, as a client may send any names: past the bound, names are decided without remembering.
 */
const loggedNameOf = new Map<string, string | null>();
const MAX_REMEMBERED_NAMES = 512;

function loggedName(name: string): string | null {
  let logged = loggedNameOf.get(name);
  if (logged !== undefined) return logged;
  logged = isAllowedHeader(name) ? name.toLowerCase() : null;
  if (loggedNameOf.size < MAX_REMEMBERED_NAMES) loggedNameOf.set(name, logged);
  return logged;
}

/** The allowlisted headers, names lower-cased, in a stable (sorted) order; repeated ones (arrays) are not kept. */
export function pickAllowedHeaders(headers: Record<string, string> | IncomingHttpHeaders): Record<string, string> {
  // Filtered before sorting: most headers are dropped, and sorting them all cost more than the rest.
  const kept: string[] = [];
  for (const name of Object.keys(headers)) if (typeof headers[name] === 'string' && loggedName(name) !== null) kept.push(name);
  // Sorted by the names as sent, as before: of two spellings of one name, the later one's value stays.
  sortInPlace(kept);
  const picked: Record<string, string> = {};
  for (const name of kept) picked[loggedName(name) as string] = headers[name] as string;
  return picked;
}

/**
 * Array.prototype.sort's order (UTF-16 code units) by insertion, in place: a request keeps a handful
 * of names, and the built-in sort's work arrays were the largest allocation of the plan stage
 * (0.8 KB a request, measured with V8's sampling heap profiler; DESIGN.md, "Performance and memory").
 */
function sortInPlace(names: string[]): void {
  for (let next = 1; next < names.length; next += 1) {
    const name = names[next] as string;
    let at = next;
    for (; at > 0 && (names[at - 1] as string) > name; at -= 1) names[at] = names[at - 1] as string;
    names[at] = name;
  }
}
