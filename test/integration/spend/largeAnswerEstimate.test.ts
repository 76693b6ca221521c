import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';
import { byteEstimateTokens, estimateTextTokens, TOKENIZE_LIMIT_CHARS } from '../../../proxy/spend/estimate.ts';

/** The least the log may keep of each body (the `bodyCaptureKiB` setting's minimum, 16 KiB). */
const CAPTURE_LIMIT_BYTES = 16 * 1024;
const PRICE = { model: 'gpt-4o-mini', inputPer1M: 1, outputPer1M: 4 };
/** An agent writing a file in its answer: about 32 KB, twice what the log keeps. */
const LARGE_ANSWER = Array.from({ length: 640 }, (_, line) => `line ${line}: const value${line} = compute(${line}, 'x');`).join('\n');
const THINKING = Array.from({ length: 600 }, (_, step) => `Step ${step}: weigh option ${step} against the last one.`).join(' ');
/** Past the tokenizer's limit: counted by its bytes, as a text that large is. */
const HUGE_ANSWER = LARGE_ANSWER.repeat(Math.ceil((TOKENIZE_LIMIT_CHARS * 1.2) / LARGE_ANSWER.length));
const PROMPT = 'write the file';
const SHORT_REPLY = 'Done.';

let harness: Harness;
let native: Harness;
beforeAll(async () => {
  harness = await startHarness({ profile: { prices: [PRICE] }, captureLimitBytes: CAPTURE_LIMIT_BYTES });
  native = await startHarness({
    profile: { prices: [PRICE], protocolModes: { messages: 'native' } },
    simulator: { nativeProtocols: ['messages'] },
    captureLimitBytes: CAPTURE_LIMIT_BYTES,
  });
});
afterAll(async () => {
  await harness?.close();
  await native?.close();
});

type RowEnd = Awaited<ReturnType<Harness['nextEnd']>>;

async function chatRow(stream: boolean): Promise<RowEnd> {
  const ended = harness.nextEnd();
  const answer = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${SENTINEL_KEY}` },
    body: chatBody({ stream, messages: [{ role: 'user', content: PROMPT }] }),
  });
  expect(answer.status, answer.body).toBe(200);
  return ended;
}

/** Estimated from all the model wrote, each part tokenized as the code's estimator counts it. */
function expectEstimatedFrom(end: RowEnd, ...written: string[]): void {
  expect(end.usageSource).toBe('estimated');
  // The log's copy was cut: the estimate did not come from it.
  expect(end.bodies.responseBodyTruncated).toBe(true);
  expect(end.usage?.outputTokens).toBe(written.reduce((tokens, text) => tokens + estimateTextTokens(text), 0));
}

/**
 * The log keeps the start of each body; a usage estimate must count all the gateway answered, for
 * the gateway bills all of it. Cut, a whole answer's JSON did not parse and was estimated at 0
 * output tokens, and a stream's text was counted to the cut only.
 */
describe('an answer larger than the log keeps, without reported usage', () => {
  it('estimates a whole answer from all its text', async () => {
    harness.simulator.script({ kind: 'reply', usage: false, content: LARGE_ANSWER });
    expectEstimatedFrom(await chatRow(false), LARGE_ANSWER);
  });

  it('estimates a stream from all its text', async () => {
    harness.simulator.script({ kind: 'reply', usage: false, content: LARGE_ANSWER });
    expectEstimatedFrom(await chatRow(true), LARGE_ANSWER);
  });

  it.each([false, true])('estimates an answer past the tokenizer limit from all its bytes (streamed: %s)', async (stream) => {
    harness.simulator.script({ kind: 'reply', usage: false, content: HUGE_ANSWER });
    const end = await chatRow(stream);
    expect(end.usageSource).toBe('estimated');
    expect(end.usage?.outputTokens).toBe(byteEstimateTokens(Buffer.byteLength(HUGE_ANSWER)));
  });

  it('estimates a stream from all of its reasoning and its text, each counted on its own', async () => {
    harness.simulator.script({ kind: 'reply', usage: false, reasoning: THINKING, content: SHORT_REPLY });
    expectEstimatedFrom(await chatRow(true), SHORT_REPLY, THINKING);
  });

  it('estimates a native Messages answer from all of its thinking and its text', async () => {
    const message = {
      id: 'msg_l1',
      type: 'message',
      role: 'assistant',
      model: PRICE.model,
      content: [
        { type: 'thinking', thinking: THINKING, signature: '' },
        { type: 'text', text: LARGE_ANSWER },
      ],
      stop_reason: 'end_turn',
      stop_sequence: null,
    };
    native.simulator.script({ kind: 'text', status: 200, contentType: 'application/json', text: JSON.stringify(message) });
    const ended = native.nextEnd();
    const answer = await rawRequest(`${native.proxy.url}/v1/messages`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${SENTINEL_KEY}` },
      body: JSON.stringify({ model: PRICE.model, max_tokens: 16000, messages: [{ role: 'user', content: PROMPT }] }),
    });
    expect(answer.status, answer.body).toBe(200);
    expectEstimatedFrom(await ended, LARGE_ANSWER, THINKING);
  });
});
