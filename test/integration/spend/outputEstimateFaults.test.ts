import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';
import { byteEstimateTokens } from '../../../proxy/spend/estimate.ts';

/**
 * Answers without reported usage whose estimate went wrong, or broke the answer: each case asserts
 * what the user gets (the answer relayed) and that the estimate counts it as the same answer whole.
 */
const PRICE = { model: 'claude-opus-4-8', inputPer1M: 5, outputPer1M: 25 };
const REQUEST = { model: PRICE.model, max_tokens: 16000, messages: [{ role: 'user', content: 'which option?' }] };

let native: Harness;
beforeAll(async () => {
  native = await startHarness({
    profile: { prices: [PRICE], protocolModes: { messages: 'native' } },
    simulator: { nativeProtocols: ['messages'] },
  });
});
afterAll(async () => {
  await native?.close();
});

type RowEnd = Awaited<ReturnType<Harness['nextEnd']>>;
async function rowOf(stream: boolean, text: string): Promise<{ status: number; end: RowEnd }> {
  native.simulator.script({ kind: 'text', status: 200, contentType: stream ? 'text/event-stream' : 'application/json', text });
  const ended = native.nextEnd();
  const answer = await rawRequest(`${native.proxy.url}/v1/messages`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${SENTINEL_KEY}` },
    body: JSON.stringify({ ...REQUEST, stream }),
  });
  return { status: answer.status, end: await ended };
}

describe('a native Messages answer whose tool input nests deeper than JSON.stringify recurses', () => {
  const DEPTH = 20_000;
  const deepInput = `${'{"a":'.repeat(DEPTH)}1${'}'.repeat(DEPTH)}`;
  const answerText = (usage: string): string =>
    `{"id":"msg_d","type":"message","role":"assistant","model":"${PRICE.model}","content":[{"type":"tool_use","id":"t1","name":"x","input":${deepInput}}],"stop_reason":"tool_use","stop_sequence":null${usage}}`;

  it('is relayed as it is with usage', async () => {
    const { status, end } = await rowOf(false, answerText(',"usage":{"input_tokens":3,"output_tokens":5}'));
    expect(status).toBe(200);
    expect(end.usageSource).toBe('reported');
  });

  it('is relayed, and estimated from its bytes, without usage', async () => {
    const { status, end } = await rowOf(false, answerText(''));
    expect(status).toBe(200);
    expect(end.usageSource).toBe('estimated');
    // Its tool input cannot be written out again to be counted: the answer's bytes stand for it, at the byte rate.
    expect(end.usage?.outputTokens).toBe(byteEstimateTokens(Buffer.byteLength(answerText(''))));
  });
});
