import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Fault } from '../../simulator/types.ts';
import { JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';

/**
 * Anthropic's count_tokens runs no model and is never billed (its answer's usage reads 0). One that
 * broke off (cut short in order, or reset mid-body) has no usage to read: it must still cost
 * nothing, not the input estimate a broken generation is billed.
 */
const PRICE = { model: 'native-model', inputPer1M: 1000, outputPer1M: 2000 };
let harness: Harness;
beforeAll(async () => {
  harness = await startHarness({
    simulator: { nativeProtocols: ['messages'], holdNativeStreamsOpen: false },
    profile: { protocolModes: { messages: 'native' }, prices: [PRICE] },
  });
});
afterAll(async () => {
  await harness.close();
});

const BROKEN: [string, Fault][] = [
  ['cut short in order', { kind: 'text', status: 200, contentType: 'application/json', text: '{"input_tok' }],
  ['reset mid-body', { kind: 'text', status: 200, contentType: 'application/json', text: '{"input_tokens": 12}', resetAfterBytes: 8 }],
];

describe('a native count_tokens answer that broke off', () => {
  it.each(BROKEN)('%s is billed nothing', async (_name, script) => {
    harness.simulator.script(script);
    const ended = harness.nextEnd();
    await rawRequest(`${harness.proxy.url}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: JSON.stringify({ model: PRICE.model, messages: [{ role: 'user', content: 'hi '.repeat(50) }] }),
    });
    const end = await ended;
    expect(end.errorClass).not.toBeNull();
    expect(end.costCredits ?? 0).toBe(0);
    expect(end.usage?.inputTokens ?? 0).toBe(0);
  });
});
