import { request, type ClientRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { inputTokensUpperBound } from '../../../proxy/spend/estimate.ts';
import type { SpendCheckInput, SpendGate } from '../../../proxy/contracts/ports.ts';
import { chatBody, JSON_HEADERS } from '../../support/http.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';

/** About 40,000 tokens: counting them on the tokenizer thread takes several milliseconds. */
const LARGE_PROMPT = 'the quick brown fox jumps over the lazy dog '.repeat(4_000);

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/**
 * A gate with a cap that admits everything; with `admitsAtBound` false, its caps do not admit the
 * request at the estimate's upper bound, so the input is counted.
 */
function countingGate(onEstimateWanted: () => void, checked: SpendCheckInput[], admitsAtBound = false): SpendGate {
  return {
    needsInputEstimate: () => {
      onEstimateWanted();
      return true;
    },
    budgetsAdmit: () => admitsAtBound,
    admitStep: () => null,
    stepLeft: () => undefined,
    check: (input) => {
      checked.push(input);
      return null;
    },
    refineHold: () => undefined,
    recordOutcome: () => undefined,
  };
}

describe('the input estimate for budget caps', () => {
  it('is the upper bound, without a count, when the caps admit the request at that bound', async () => {
    const checked: SpendCheckInput[] = [];
    harness = await startHarness({ spendGate: countingGate(() => undefined, checked, true) });
    const body = chatBody({ messages: [{ role: 'user', content: LARGE_PROMPT }] });
    const response = await fetch(`${harness.proxy.url}/v1/chat/completions`, { method: 'POST', headers: JSON_HEADERS, body });
    expect(response.status).toBe(200);
    await response.text();
    // The bound counts the prompt as its bytes: a count gives about a fifth of that.
    expect(checked[0]?.estimatedInputTokens).toBe(inputTokensUpperBound(JSON.parse(body)));
    expect(checked[0]?.estimatedInputTokens).toBeGreaterThan(Buffer.byteLength(LARGE_PROMPT));
  });
});

describe('while a request waits for its token count', () => {
  it('a client that leaves gets nothing sent upstream on its behalf', async () => {
    let client: ClientRequest | undefined;
    const checked: SpendCheckInput[] = [];
    // The client leaves just as the proxy starts counting: its close arrives during the count.
    harness = await startHarness({ spendGate: countingGate(() => client?.destroy(), checked) });
    const ended = harness.nextEnd();
    client = request(`${harness.proxy.url}/v1/chat/completions`, { method: 'POST', headers: JSON_HEADERS });
    client.on('error', () => undefined);
    client.end(chatBody({ messages: [{ role: 'user', content: LARGE_PROMPT }] }));

    const end = await ended;
    expect(end).toMatchObject({ status: 499, errorClass: 'client_aborted' });
    expect(checked[0]?.estimatedInputTokens).toBeGreaterThan(30_000);
    expect(harness.simulator.received.filter((received) => received.path === '/v1/chat/completions')).toHaveLength(0);
  });

  it('a client that stays gets its answer, with the count given to the gate', async () => {
    const checked: SpendCheckInput[] = [];
    harness = await startHarness({ spendGate: countingGate(() => undefined, checked) });
    const response = await fetch(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: chatBody({ messages: [{ role: 'user', content: 'hello' }] }),
    });
    expect(response.status).toBe(200);
    await response.text();
    expect(checked[0]?.estimatedInputTokens).toBeGreaterThan(0);
    expect(checked[0]?.estimatedInputTokens).toBeLessThan(50);
  });
});
