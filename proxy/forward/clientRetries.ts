import type { IncomingHttpHeaders } from 'node:http';

/**
 * Whether the client retries a failed request by itself. Then Airlock does not: each of the
 * client's attempts would set off Airlock's own retries too, multiplying the requests the gateway
 * gets (12 for one failure the OpenAI SDK would have sent 3 times). The answer goes to the client at
 * once with the gateway's Retry-After, so it waits as long as the gateway asked.
 * - The OpenAI and Anthropic SDKs (and Claude Code, built on the latter) send
 *   `x-stainless-retry-count` on every attempt and retry 408, 409, 429 and 5xx
 *   (node_modules/openai/client.js and @anthropic-ai/sdk/client.js, shouldRetry).
 * - Codex sends `originator: codex_cli_rs` (its TUI `codex-tui`, its VS Code extension
 *   `codex_vscode`, its apps `Codex <product>`: codex-rs is_first_party_originator) and retries 429,
 *   5xx and network failures (openai/codex codex-rs: request_max_retries and stream_max_retries;
 *   its 429 is retried as a stream reconnect, test/integration/clients/codexRetries.test.ts).
 * - The AI SDK (Vercel's; opencode and many apps are built on it) names itself in the user agent
 *   (`ai-sdk/<provider>/<version>`, later `ai-sdk-<provider>/<version>`: provider-utils
 *   withUserAgentSuffix) and generateText/streamText retry 408, 409, 429 and 5xx twice by default
 *   (@ai-sdk/provider APICallError isRetryable, maxRetries 2).
 * Other clients (curl, scripts) get Airlock's retries, docs/gateway-spec.md §7.
 */
export function clientRetriesItself(headers: IncomingHttpHeaders): boolean {
  if (headers['x-stainless-retry-count'] !== undefined) return true;
  if (isCodex(headers)) return true;
  const userAgent = headers['user-agent'];
  return typeof userAgent === 'string' && AI_SDK_USER_AGENT.test(userAgent);
}

/**
 * The status a final answer (`x-should-retry: false`: no resend changes it) goes to this client
 * with. Codex reads no `x-should-retry` and resends a request after any status but 400, 401 and 429
 * (and 426, its WebSocket's way to HTTP), five times by default with "Reconnecting... n/5" on its
 * screen: a budget cap's 402 reached Airlock six times over about 8.5 s before Codex printed it.
 * At a 400 it stops at once and prints the body, which holds the cause and the fix (checked with
 * Codex 0.169, test/integration/clients/codexRefusals.test.ts). Other clients get the status as it is.
 */
export function finalAnswerStatus(headers: IncomingHttpHeaders, status: number): number {
  const resent = status >= 400 && status < 500 && !CODEX_STOPS_AT.has(status);
  return resent && isCodex(headers) ? 400 : status;
}

const CODEX_STOPS_AT = new Set([400, 401, 426, 429]);

function isCodex(headers: IncomingHttpHeaders): boolean {
  const originator = headers['originator'];
  return typeof originator === 'string' && CODEX_ORIGINATOR.test(originator);
}

/** Every Codex front end's originator, `Codex Desktop` as well as `codex_cli_rs`. */
const CODEX_ORIGINATOR = /^codex/i;
/** A product token of the AI SDK's at the start or after a space. */
const AI_SDK_USER_AGENT = /(^|\s)ai-sdk[/-]/;
