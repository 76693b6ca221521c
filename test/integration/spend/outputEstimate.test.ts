import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';

/** An agent writing a file: the tool call's arguments are the whole answer, about 1500 tokens of text. */
const FILE_TEXT = Array.from({ length: 300 }, (_, line) => `line ${line}: const value${line} = compute(${line});`).join('\n');
const WRITE_FILE = { name: 'write_file', arguments: JSON.stringify({ path: 'src/generated.ts', content: FILE_TEXT }) };
const THINKING = Array.from({ length: 200 }, (_, step) => `Step ${step}: weigh option ${step} against the last one.`).join(' ');
const TOOLS = [{ type: 'function', function: { name: 'write_file', parameters: { type: 'object' } } }];
const PRICE = { model: 'gpt-4o-mini', inputPer1M: 1, outputPer1M: 4 };

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({ profile: { prices: [PRICE] } });
});
afterAll(async () => {
  await harness?.close();
});

/**
 * A gateway that reports no usage leaves Airlock to estimate what the answer cost. The estimate
 * must count everything the model wrote: tool-call arguments and reasoning are billed output too.
 */
describe('an answer without reported usage', () => {
  it.each([
    { name: 'a streamed tool call', stream: true, reply: { toolCalls: [WRITE_FILE] }, written: WRITE_FILE.arguments },
    { name: 'a tool call', stream: false, reply: { toolCalls: [WRITE_FILE] }, written: WRITE_FILE.arguments },
    { name: 'streamed reasoning', stream: true, reply: { reasoning: THINKING, content: 'ok' }, written: THINKING },
  ])('estimates the output of $name from what the model wrote', async ({ stream, reply, written }) => {
    harness.simulator.script({ kind: 'reply', usage: false, ...reply });
    const ended = harness.nextEnd();
    const answer = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${SENTINEL_KEY}` },
      body: chatBody({ stream, tools: TOOLS }),
    });
    expect(answer.status, answer.body).toBe(200);
    const end = await ended;
    expect(end.usageSource).toBe('estimated');
    // The tokenizer counts about a token per 4 bytes of such text: at least one per 6, at most one per byte.
    expect(end.usage?.outputTokens).toBeGreaterThan(Buffer.byteLength(written) / 6);
    expect(end.usage?.outputTokens).toBeLessThan(Buffer.byteLength(written) + 100);
  });
});
