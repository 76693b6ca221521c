import { describe, expect, it } from 'vitest';
import { OnDemandThread } from '../../../proxy/core/onDemandThread.ts';
import type { FromTokenizerThread, ToTokenizerThread } from '../../../proxy/spend/tokenizerMessages.ts';
import { FIXED_TOKENS } from '../spend/fixtures/fixedCount.ts';
import { threadNames } from '../../support/procStat.ts';

const FIXED_COUNT_THREAD = new URL('../spend/fixtures/fixedCountThread.ts', import.meta.url);
const OUT_OF_DESCRIPTORS_THREAD = new URL('../spend/fixtures/outOfDescriptorsThread.ts', import.meta.url);

function thread(
  stopWhenIdleMs?: number,
  trimAfterStop?: () => void,
): OnDemandThread<ToTokenizerThread, FromTokenizerThread, (tokens: number) => void> {
  return new OnDemandThread({
    scriptUrl: FIXED_COUNT_THREAD,
    threadName: 'test-count',
    maxFailuresInARow: 3,
    onAnswer: (answer, waiter) => waiter?.(answer.tokens),
    onUnanswered: (waiter) => waiter(-1),
    onError: () => undefined,
    onGaveUp: () => undefined,
    ...(stopWhenIdleMs === undefined ? {} : { stopWhenIdleMs }),
    ...(trimAfterStop === undefined ? {} : { trimAfterStop }),
  });
}

const count = (target: ReturnType<typeof thread>): Promise<number> =>
  new Promise((resolve) => target.ask(resolve, (id) => ({ id, kind: 'text', text: 'hello' }), []));

describe('OnDemandThread idle stop', () => {
  it('stops a thread left without questions, and starts a new one for the next question', async () => {
    const counter = thread(1);
    expect(await count(counter)).toBe(FIXED_TOKENS);
    await expect.poll(() => counter.running).toBe(false);
    expect(await count(counter)).toBe(FIXED_TOKENS);
    expect(counter.available).toBe(true);
    await counter.stop();
  });

  it("trims glibc's free pages once the stopped thread has ended, not before", async () => {
    const threadAliveAtTrims: boolean[] = [];
    const counter = thread(1, () => threadAliveAtTrims.push(threadNames().includes('test-count')));
    expect(await count(counter)).toBe(FIXED_TOKENS);
    await expect.poll(() => threadAliveAtTrims).toEqual([false]);
  });

  it('keeps its thread for good without the option', async () => {
    const counter = thread();
    expect(await count(counter)).toBe(FIXED_TOKENS);
    // Another answer from the same thread proves it stayed: nothing stops it in between.
    expect(await count(counter)).toBe(FIXED_TOKENS);
    expect(counter.running).toBe(true);
    await counter.stop();
    expect(counter.running).toBe(false);
  });
});

describe('OnDemandThread while the process is out of file descriptors', () => {
  it('fails those questions but does not give up: the next question after they free is answered', async () => {
    let outOfDescriptors = true;
    let gaveUp = false;
    const counter = new OnDemandThread<ToTokenizerThread, FromTokenizerThread, (tokens: number) => void>({
      scriptUrl: OUT_OF_DESCRIPTORS_THREAD,
      threadName: 'test-count',
      workerData: () => ({ outOfDescriptors }),
      maxFailuresInARow: 3,
      onAnswer: (answer, waiter) => waiter?.(answer.tokens),
      onUnanswered: (waiter) => waiter(-1),
      onError: () => undefined,
      onGaveUp: () => {
        gaveUp = true;
      },
    });
    // More than maxFailuresInARow starts that die for want of descriptors.
    for (let attempt = 0; attempt < 4; attempt += 1) expect(await count(counter)).toBe(-1);
    expect(gaveUp).toBe(false);
    expect(counter.available).toBe(true);
    outOfDescriptors = false;
    expect(await count(counter)).toBe(FIXED_TOKENS);
    await counter.stop();
  });
});
