import { afterEach, describe, expect, it } from 'vitest';
import type { RequestLifecycleEvent } from '../../../proxy/contracts/lifecycle.ts';
import { createSpendGate } from '../../../proxy/spend/spendGate.ts';
import { SpendLedger } from '../../../proxy/spend/spendLedger.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { PLAIN_HINT } from '../../../proxy/contracts/cli.ts';

/**
 * The burst guard's credit limit is a rate ("spends more than 5 credits within a minute", README):
 * a stream spends as it runs, so what a running stream has spent counts from when it is spent,
 * not only once the stream ends. A runaway agent's long streams are paused while they run.
 */
let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

const MODEL = 'gpt-4o-mini';
/** 1000 credits per 1M output tokens: 3 KB of answer (about 1000 tokens at bytes / 3) is about 1 credit. */
const PRICE = { model: MODEL, outputPer1M: 1000 };
const chunk = (delta: object, extra: object = {}): string =>
  `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: MODEL, choices: [{ index: 0, delta, finish_reason: null }], ...extra })}\n\n`;

function spendingStream(until: Promise<unknown>) {
  return {
    kind: 'bodyChunks' as const,
    chunks: [
      chunk({ role: 'assistant', content: 'A runaway answer. '.repeat(170) }),
      chunk(
        {},
        {
          choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
          usage: { prompt_tokens: 10, completion_tokens: 1000, total_tokens: 1010 },
        },
      ),
      'data: [DONE]\n\n',
    ],
    pause: { beforeChunk: 1, until },
  };
}

describe("the burst guard's credit limit, while a stream runs", () => {
  it("pauses the client once a running stream's spend so far crosses it, before the stream ends", async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    harness = await startHarness({
      profile: { prices: [PRICE] },
      spendGate: createSpendGate({
        commandHint: PLAIN_HINT,
        ledger: new SpendLedger(),
        clientBudget: () => undefined,
        burstGuard: { maxCredits: 0.5 },
      }),
    });
    const h = harness;
    h.simulator.script(spendingStream(released));
    const spentSoFar = new Promise<RequestLifecycleEvent>((resolve) => {
      const stop = h.subscribe((event) => {
        if (event.type === 'progress' && event.usage.outputTokens > 0) {
          stop();
          resolve(event);
        }
      });
    });
    const stream = rawRequest(`${h.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: chatBody({ model: MODEL, stream: true }),
    });
    expect(await spentSoFar).toMatchObject({ costCredits: expect.any(Number) });

    // The stream has spent about 1 credit and runs on: the client's next request is paused.
    const next = await rawRequest(`${h.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: chatBody({ model: MODEL }),
    });
    expect(next.status, next.body).toBe(403);
    expect(next.body).toMatch(/client_paused/);
    release();
    expect((await stream).status).toBe(200);
    expect(h.simulator.received).toHaveLength(1);
  });

  it("does not pause a client for a running stream's input the gateway bills from its prompt cache", async () => {
    // The running estimate counted the input as the body's bytes / 3 at the full input price: about
    // 2 credits here, where the gateway bills about 0.24 (most of it read from the cache, at a tenth).
    // Claude Code resends its long, cached context every turn: a pause is sticky, the agent stopped.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    harness = await startHarness({
      profile: { prices: [{ model: MODEL, inputPer1M: 100, cachedInputPer1M: 10, outputPer1M: 100 }] },
      spendGate: createSpendGate({
        commandHint: PLAIN_HINT,
        ledger: new SpendLedger(),
        clientBudget: () => undefined,
        burstGuard: { maxCredits: 1 },
      }),
    });
    const h = harness;
    const usage = { prompt_tokens: 15_000, completion_tokens: 20, total_tokens: 15_020, prompt_tokens_details: { cached_tokens: 14_000 } };
    h.simulator.script({
      kind: 'bodyChunks',
      chunks: [
        chunk({ role: 'assistant', content: 'Reading the files you named. ' }),
        chunk({}, { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage }),
        'data: [DONE]\n\n',
      ],
      pause: { beforeChunk: 1, until: released },
    });
    const answering = new Promise<void>((resolve) => {
      const stop = h.subscribe((event) => {
        if (event.type === 'progress' && event.usage.outputTokens > 0) {
          stop();
          resolve();
        }
      });
    });
    const longContext = [{ role: 'user', content: 'The repository so far, file by file. '.repeat(1600) }];
    const stream = rawRequest(`${h.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: chatBody({ model: MODEL, stream: true, messages: longContext }),
    });
    await answering;
    const next = await rawRequest(`${h.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: chatBody({ model: MODEL }),
    });
    expect(next.status, next.body).toBe(200);
    release();
    expect((await stream).status).toBe(200);
  });
});
