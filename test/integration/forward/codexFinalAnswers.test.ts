import { afterEach, describe, expect, it } from 'vitest';
import { PLAIN_HINT } from '../../../proxy/contracts/cli.ts';
import { createSpendGate } from '../../../proxy/spend/spendGate.ts';
import { SpendLedger } from '../../../proxy/spend/spendLedger.ts';
import { chatBody, JSON_HEADERS, rawRequest, type RawResponse } from '../../support/http.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';

/**
 * Codex gets a final answer as a 400 (forward/clientRetries.ts finalAnswerStatus); what Airlock
 * learns from the gateway's answer must not change with it.
 */

const CODEX = { originator: 'codex_cli_rs' };

let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

const chat = (proxy: Harness, headers: Record<string, string> = {}): Promise<RawResponse> =>
  rawRequest(`${proxy.proxy.url}/v1/chat/completions`, { method: 'POST', headers: { ...JSON_HEADERS, ...headers }, body: chatBody() });

const errorOf = (response: RawResponse): { type: string; message: string } =>
  (JSON.parse(response.body) as { error: { type: string; message: string } }).error;

describe('a key the gateway rejected with a 403, first met by Codex', () => {
  it("opens the breaker naming the gateway's 403, not the 400 Codex was answered with", async () => {
    harness = await startHarness({
      spendGate: createSpendGate({ commandHint: PLAIN_HINT, ledger: new SpendLedger(), clientBudget: () => undefined }),
    });
    harness.simulator.script({
      kind: 'status',
      status: 403,
      body: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } },
    });
    const rejected = await chat(harness, CODEX);
    expect(rejected.status).toBe(400);
    expect(errorOf(rejected).type).toBe('auth');

    const refused = await chat(harness);
    expect(refused.status).toBe(403);
    expect(errorOf(refused).type).toBe('circuit_open');
    expect(errorOf(refused).message).toContain('with HTTP 403');
  });
});

describe("the request guards' refusal (a Host that is no loopback name of Airlock's)", () => {
  const aliasHost = (proxy: Harness): Record<string, string> => ({ host: `airlock.local:${proxy.proxy.port}` });

  it('reaches Codex as a 400, which it does not resend, and says no resend helps', async () => {
    harness = await startHarness();
    const refused = await chat(harness, { ...CODEX, ...aliasHost(harness) });
    expect(refused.status).toBe(400);
    expect(refused.headers['x-should-retry']).toBe('false');
    expect(JSON.parse(refused.body)).toMatchObject({ error: { code: 'forbidden_host' } });
  });

  it('reaches any other client as the 403 it was', async () => {
    harness = await startHarness();
    const refused = await chat(harness, aliasHost(harness));
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body)).toMatchObject({ error: { code: 'forbidden_host' } });
  });
});
