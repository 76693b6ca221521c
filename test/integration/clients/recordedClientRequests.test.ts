import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chatBody, rawRequest } from '../../support/http.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';

/**
 * Continue's, Cline's and opencode's CLIs as they call an OpenAI-compatible base URL, their headers
 * as recorded through Airlock on 2026-11-29 (the token aside). Each retries a failed request by
 * itself, so Airlock answers a gateway's failure at once and sends it no request of its own behind
 * the tool's (DESIGN.md, Who retries, and why). Checked with the real binaries against the gateway
 * directly and through Airlock: the gateway got as many requests either way, or fewer through Airlock.
 */

interface RecordedClient {
  name: string;
  headers: Record<string, string>;
  /** The body's fields besides `messages` and `tools`, as the tool sent them. */
  fields: Record<string, unknown>;
}

const RECORDED: RecordedClient[] = [
  {
    // The OpenAI SDK 5.23.2 inside, with its own backoff around it (src/util/exponentialBackoff.ts:
    // 429, 502, 503, 504 and `server_error`, ten times more).
    name: 'Continue CLI 1.5.47 (cn -p)',
    headers: {
      accept: 'application/json',
      'user-agent': 'ls/JS 5.23.2',
      'x-stainless-arch': 'x64',
      'x-stainless-lang': 'js',
      'x-stainless-os': 'Linux',
      'x-stainless-package-version': '5.23.2',
      'x-stainless-retry-count': '0',
      'x-stainless-runtime': 'node',
      'x-stainless-runtime-version': 'v24.21.0',
    },
    fields: { stream: true, stream_options: { include_usage: true } },
  },
  {
    // Its `openai` provider (OpenAI Compatible) on the AI SDK's openai-compatible provider.
    name: 'Cline CLI 3.0.65',
    headers: { accept: '*/*', 'user-agent': 'ai-sdk/openai-compatible/3.0.37 ai-sdk/provider-utils/5.0.30 runtime/bun/1.3.13' },
    fields: { tool_choice: 'auto', stream: true, stream_options: { include_usage: true } },
  },
  {
    // A provider configured with `@ai-sdk/openai-compatible`; the agent's own name first in the user agent.
    name: 'opencode 1.18.33 (opencode run)',
    headers: {
      accept: '*/*',
      'user-agent': 'opencode/1.18.33 ai-sdk/provider-utils/4.0.23 runtime/bun/1.3.14',
      'x-session-affinity': 'ses_dda90fa31ffehi5sXK7Y2TpHwF',
      'x-session-id': 'ses_dda90fa31ffehi5sXK7Y2TpHwF',
    },
    fields: { max_tokens: 32000, tool_choice: 'auto', stream: true, stream_options: { include_usage: true } },
  },
];

let harness: Harness;

beforeAll(async () => {
  // Airlock's own retries on, as for a profile's default: a client it took for a plain one would meet them.
  harness = await startHarness({ profile: { retry: { maxRetries: 3, maxRetryAfterMs: 8_000 } } });
});
afterAll(async () => {
  await harness.close();
});
beforeEach(() => {
  harness.simulator.reset();
});

function sendAs(client: RecordedClient) {
  const { messages } = JSON.parse(chatBody()) as { messages: unknown[] };
  return rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...client.headers, 'content-type': 'application/json', authorization: 'Bearer alk_recorded_client' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages, ...client.fields }),
  });
}

/** The answer's text as the tool puts it together from the chunks' deltas. */
function streamedText(eventStream: string): string {
  return eventStream
    .split('\n')
    .filter((line) => line.startsWith('data: {'))
    .map(
      (line) =>
        (JSON.parse(line.slice('data: '.length)) as { choices: { delta?: { content?: string } }[] }).choices[0]?.delta?.content ?? '',
    )
    .join('');
}

describe.each(RECORDED)('$name', (client) => {
  it.each([
    ['503', { kind: 'status' as const, status: 503 }, undefined],
    ['429 with Retry-After', { kind: 'status' as const, status: 429, retryAfterS: 1 }, '1'],
  ])('gets the gateway’s %s at once, after one gateway request', async (_name, fault, retryAfter) => {
    harness.simulator.script(fault, fault, fault, fault);

    const response = await sendAs(client);

    expect(response.status).toBe(fault.status);
    expect(response.headers['retry-after']).toBe(retryAfter);
    expect(harness.simulator.received).toHaveLength(1);
  });

  it('streams the answer through', async () => {
    harness.simulator.script({ kind: 'reply', content: 'recorded-client-answer' });

    const response = await sendAs(client);

    expect(response.status).toBe(200);
    expect(streamedText(response.body)).toBe('recorded-client-answer');
    expect(response.body).toContain('data: [DONE]');
  });
});
