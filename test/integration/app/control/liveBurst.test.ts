import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LiveFrame } from '../../../../proxy/contracts/liveEvents.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../../support/http.ts';
import { setUpMainProfileAndAgent, startControlHarness, type ControlHarness } from '../../../support/controlHarness.ts';

/**
 * A window that reads its live feed as it comes while agents' streams arrive in a burst: it keeps
 * its one connection and sees every request start and end. The feed used to judge a window by the
 * bytes it had not yet taken at the next frame, so one frame holding a burst's whole text was
 * enough to drop a window that was reading: it reconnected, lost frames and flickered.
 */
const STREAMS = 8;
/** Far more text than a window is ever shown of a stream (it keeps a tail), sent as fast as loopback takes it. */
const REPLY_CHARS = 3 * 1024 * 1024;

let harness: ControlHarness;
let clientToken = '';

beforeAll(async () => {
  harness = await startControlHarness();
  clientToken = await setUpMainProfileAndAgent(harness);
});
afterAll(async () => {
  await harness.close();
});

interface ReadingWindow {
  /** Resolves once `count` requests it saw start have ended; rejects if its connection closes first. */
  seesEnded(count: number): Promise<void>;
  /** Whether its connection closed (it was dropped). */
  closed(): boolean;
  close(): void;
}

/** The live feed read as the window reads it: every chunk as it arrives, each frame parsed. */
async function readingWindow(): Promise<ReadingWindow> {
  const abort = new AbortController();
  const events = await harness.api('/events', { signal: abort.signal });
  const reader = events.body!.pipeThrough(new TextDecoderStream()).getReader();
  const started = new Set<string>();
  const ended = new Set<string>();
  let closed = false;
  let waiter: { count: number; resolve: () => void; reject: (error: Error) => void } | null = null;
  const settle = (): void => {
    if (waiter === null) return;
    if ([...ended].filter((id) => started.has(id)).length >= waiter.count) waiter.resolve();
    else if (closed) waiter.reject(new Error(`the window was dropped after seeing ${ended.size} of ${waiter.count} requests end`));
  };
  void (async () => {
    let buffered = '';
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: '' }));
      if (done) break;
      buffered += value;
      const messages = buffered.split('\n\n');
      buffered = messages.pop() ?? '';
      for (const message of messages) {
        const data = message.split('\n').find((line) => line.startsWith('data: '));
        if (data === undefined) continue;
        for (const update of (JSON.parse(data.slice(6)) as LiveFrame).requests) {
          if (update.fields.startedAtMs !== undefined) started.add(update.requestId);
          if (update.fields.state === 'done') ended.add(update.requestId);
        }
      }
      settle();
    }
    closed = true;
    settle();
  })();
  return {
    seesEnded: (count) =>
      new Promise((resolve, reject) => {
        waiter = { count, resolve, reject };
        settle();
      }),
    closed: () => closed,
    close: () => abort.abort(),
  };
}

describe('a window reading its live feed while a burst of streams arrives', () => {
  it('keeps its connection and sees every request start and end', async () => {
    const window = await readingWindow();
    for (let index = 0; index < STREAMS; index += 1) harness.simulator.script({ kind: 'reply', content: 'y'.repeat(REPLY_CHARS) });
    const headers = { ...JSON_HEADERS, authorization: `Bearer ${clientToken}` };
    const body = chatBody({ stream: true });
    const sees = window.seesEnded(STREAMS);
    await Promise.all(
      Array.from({ length: STREAMS }, () => rawRequest(`${harness.proxy.url}/v1/chat/completions`, { method: 'POST', headers, body })),
    );
    await sees;
    expect(window.closed()).toBe(false);
    window.close();
  });
});
