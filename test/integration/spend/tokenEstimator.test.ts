import { describe, expect, it } from 'vitest';
import { byteEstimateTokens, estimateChatInputTokens, estimateTextTokens } from '../../../proxy/spend/estimate.ts';
import { MAX_TOKENIZER_FAILURES, TokenEstimator } from '../../../proxy/spend/tokenEstimator.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';
import { FIXED_TOKENS } from './fixtures/fixedCount.ts';
import { threadNames } from '../../support/procStat.ts';

const CHAT_BODY = {
  model: 'gpt-4o-mini',
  messages: [
    { role: 'system', content: 'You are a careful assistant.' },
    { role: 'user', content: 'Count the tokens in this sentence, please.' },
  ],
  tools: [{ type: 'function', function: { name: 'read', parameters: { type: 'object' } } }],
};

/** The body as a client sends it: JSON split across reads, one of them a slice of a larger buffer. */
function chunked(value: unknown): { chunks: Buffer[]; byteLength: number } {
  const bytes = Buffer.from(JSON.stringify(value));
  const cut = Math.floor(bytes.length / 3);
  const padded = Buffer.concat([Buffer.from('xxxx'), bytes.subarray(cut)]);
  return { chunks: [bytes.subarray(0, cut), padded.subarray(4)], byteLength: bytes.length };
}

describe('TokenEstimator', () => {
  it('counts a chat body and text on its own thread, as the estimator functions count them', async () => {
    const estimator = new TokenEstimator();
    const body = chunked(CHAT_BODY);
    const text = 'Streaming replies are counted after the fact when no usage was reported.';
    await expect(estimator.chatInputTokens(body.chunks, body.byteLength)).resolves.toBe(estimateChatInputTokens(CHAT_BODY));
    await expect(estimator.textTokens(text)).resolves.toBe(estimateTextTokens(text));
    expect(threadNames()).toContain('airlock-tokens');
  });

  it('takes its counts from the thread, not from this one', async () => {
    const estimator = new TokenEstimator({ threadUrl: new URL('./fixtures/fixedCountThread.ts', import.meta.url) });
    const body = chunked(CHAT_BODY);
    const counts = await Promise.all([estimator.chatInputTokens(body.chunks, body.byteLength), estimator.textTokens('hello')]);
    expect(counts).toEqual([FIXED_TOKENS, FIXED_TOKENS]);
  });

  it('leaves the request’s own chunks intact (it sends a copy)', async () => {
    const estimator = new TokenEstimator({ threadUrl: new URL('./fixtures/fixedCountThread.ts', import.meta.url) });
    const body = chunked(CHAT_BODY);
    const before = Buffer.concat(body.chunks).toString('utf8');
    await estimator.chatInputTokens(body.chunks, body.byteLength);
    expect(Buffer.concat(body.chunks).toString('utf8')).toBe(before);
  });

  it('counts an empty text as 0 and a body that is not JSON as 0 input tokens', async () => {
    const estimator = new TokenEstimator();
    await expect(estimator.textTokens('')).resolves.toBe(0);
    await expect(estimator.chatInputTokens([Buffer.from('{not json')], 9)).resolves.toBe(0);
  });

  it('answers with the byte estimate when the thread dies, reports it redacted, and stops starting threads after repeated deaths', async () => {
    const failures: string[] = [];
    const estimator = new TokenEstimator({
      threadUrl: new URL('./fixtures/crashingThread.ts', import.meta.url),
      onFailure: (reason) => failures.push(reason),
    });
    const body = chunked(CHAT_BODY);
    for (let attempt = 0; attempt < MAX_TOKENIZER_FAILURES + 2; attempt += 1) {
      await expect(estimator.chatInputTokens(body.chunks, body.byteLength)).resolves.toBe(byteEstimateTokens(body.byteLength));
    }
    await expect(estimator.textTokens('four bytes')).resolves.toBe(byteEstimateTokens(10));
    expect(failures.filter((reason) => reason.includes('the tokenizer thread broke'))).toHaveLength(MAX_TOKENIZER_FAILURES);
    expect(failures.at(-1)).toMatch(/stopped several times in a row; estimates count bytes until Airlock restarts/);
    expect(failures.join('\n')).not.toContain(SENTINEL_KEY);
  });
});
