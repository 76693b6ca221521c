import { shellQuote } from '../common/shell.ts';
import type { RequestDetail } from '../../../proxy/contracts/requests.ts';

/** Stands in for a client token in anything copied out of the window; the key never appears at all. */
export const TOKEN_PLACEHOLDER_ENV = 'AIRLOCK_TOKEN';

export interface CurlInput {
  proxyUrl: string;
  method: string;
  clientPath: string;
  stream: boolean;
  /** Masked request body as logged, or null. */
  body: string | null;
  bodyTruncated: boolean;
}

/** The request again through Airlock, with the client token read from $AIRLOCK_TOKEN. */
export function buildCurl(input: CurlInput): string {
  const lines: string[] = [];
  if (input.bodyTruncated) lines.push('# The logged body was truncated: this command sends only its first part.');
  const method = input.method === 'GET' || (input.method === 'POST' && input.body !== null) ? '' : ` -X ${input.method}`;
  const parts = [`curl${input.stream ? ' -N' : ''}${method} ${shellQuote(`${input.proxyUrl}${input.clientPath}`)}`];
  parts.push(`-H "Authorization: Bearer $${TOKEN_PLACEHOLDER_ENV}"`);
  if (input.body !== null) {
    parts.push(`-H ${shellQuote('Content-Type: application/json')}`);
    parts.push(`--data-raw ${shellQuote(input.body)}`);
  }
  lines.push(parts.join(' \\\n  '));
  return lines.join('\n');
}

/** What the gateway's support asks for (docs/gateway-spec.md §7 rule 5): time, model id, status, request id, masked error. */
export function buildSupportInfo(detail: RequestDetail): string {
  const model = detail.upstreamModel ?? detail.requestedModel ?? 'unknown';
  const lines = [
    `Time (UTC): ${new Date(detail.startedAtMs).toISOString()}`,
    `Model id: ${model}${detail.responseModel && detail.responseModel !== model ? ` (response named ${detail.responseModel})` : ''}`,
    `Status: ${detail.status ?? 'no response'}`,
    `Request ID: ${detail.upstreamRequestId ?? 'not returned by the gateway'}`,
    `Endpoint: ${detail.method} ${detail.upstreamPath}${detail.stream ? ' (streaming)' : ''}`,
  ];
  if (detail.errorClass) lines.push(`Error: ${detail.errorClass}${detail.errorMessage ? `: ${detail.errorMessage}` : ''}`);
  lines.push(`Airlock request id: ${detail.id}`);
  return lines.join('\n');
}

/** The message inside an OpenAI- or Anthropic-shaped error body; other text unchanged. */
export function readableErrorMessage(text: string): string {
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown } };
    if (typeof parsed.error?.message === 'string') return parsed.error.message;
  } catch {
    // Not JSON: shown as it is.
  }
  return text;
}
