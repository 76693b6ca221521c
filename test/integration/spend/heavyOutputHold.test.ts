import { afterEach, describe, expect, it } from 'vitest';
import { PARSE_ON_LOOP_MAX_STRUCTURAL_MARKS } from '../../../proxy/contracts/defaults.ts';
import { createSpendGate } from '../../../proxy/spend/spendGate.ts';
import { SpendLedger } from '../../../proxy/spend/spendLedger.ts';
import { JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { PLAIN_HINT } from '../../../proxy/contracts/cli.ts';

let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

/**
 * A body with more keys than the forwarding loop parses (a long Claude Code or Codex session, its
 * tool schemas and turns): it is scanned, and translated off the loop. Its output limit is as real
 * as a small body's, and parallel ones must not together cross a cap by more than one could.
 */
function heavyBody(limit: Record<string, number>): string {
  const metadata: Record<string, number> = {};
  for (let index = 0; index < PARSE_ON_LOOP_MAX_STRUCTURAL_MARKS; index += 1) metadata[`k${index}`] = index;
  return JSON.stringify({ model: 'gpt-4o-mini', ...limit, messages: [{ role: 'user', content: 'hi' }], input: 'hi', metadata });
}

const CASES: { protocol: string; path: string; limit: Record<string, number>; headers: Record<string, string> }[] = [
  { protocol: 'Messages', path: '/v1/messages', limit: { max_tokens: 100_000 }, headers: { 'anthropic-version': '2023-06-01' } },
  { protocol: 'Responses', path: '/v1/responses', limit: { max_output_tokens: 100_000 }, headers: {} },
  { protocol: 'Chat Completions', path: '/v1/chat/completions', limit: { max_completion_tokens: 100_000 }, headers: {} },
];

describe.each(CASES)('a heavy $protocol request under a daily cap', ({ path, limit, headers }) => {
  it('holds its stated output limit while it runs, so a second one that would cross the cap is refused', async () => {
    // 10 credits per 1M output: each request may write 1 credit, the whole day's cap; its own output is
    // not counted against it (budgetDecision.ts), but a second must not go out while the first may spend it all.
    harness = await startHarness({
      profile: {
        protocolModes: { messages: 'translate', responses: 'translate' },
        budget: { dailyCredits: 1 },
        prices: [{ model: 'gpt-4o-mini', inputPer1M: 0.01, outputPer1M: 10 }],
      },
      spendGate: createSpendGate({ commandHint: PLAIN_HINT, ledger: new SpendLedger(), clientBudget: () => undefined }),
    });
    const held = harness.simulator.holdNext('/chat/completions');
    const send = () =>
      rawRequest(`${harness!.proxy.url}${path}`, { method: 'POST', headers: { ...JSON_HEADERS, ...headers }, body: heavyBody(limit) });
    const first = send();
    await held.arrived;
    const second = await send();
    expect(second.status, second.body).toBe(402);
    held.release();
    expect((await first).status).toBe(200);
    expect(harness.simulator.received).toHaveLength(1);
  });
});
