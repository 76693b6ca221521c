import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BACKGROUND_PRIORITY_ENV, backgroundPriority, lowerThreadPriority } from '../../../proxy/store/threadPriority.ts';
import { niceOfThreads, policyOfThreads, SCHED_IDLE } from '../../support/procStat.ts';

const SCHED_OTHER = 0;

let worker: Worker | null = null;
afterEach(async () => {
  await worker?.terminate();
  worker = null;
});

async function startIdleWorker(name: string): Promise<void> {
  worker = new Worker('setInterval(() => {}, 1000)', { eval: true, name });
  await once(worker, 'online');
}

describe('lowerThreadPriority', () => {
  it('gives the named worker thread nice 19 and the idle policy, and leaves the main thread as it was', async () => {
    const name = 'alk-prio-test';
    await startIdleWorker(name);
    const mainBefore = { nice: niceOfThreads('MainThread'), policy: policyOfThreads('MainThread') };
    expect(niceOfThreads(name)).toEqual([0]);
    expect(policyOfThreads(name)).toEqual([SCHED_OTHER]);

    expect(await lowerThreadPriority(name, 'idle')).toBe(1);

    expect(niceOfThreads(name)).toEqual([19]);
    expect(policyOfThreads(name)).toEqual([SCHED_IDLE]);
    expect({ nice: niceOfThreads('MainThread'), policy: policyOfThreads('MainThread') }).toEqual(mainBefore);
  });

  it('without chrt on the PATH, still lowers the thread to nice 19', async () => {
    const name = 'alk-prio-nochrt';
    await startIdleWorker(name);
    const path = process.env.PATH;
    process.env.PATH = '/nonexistent';
    try {
      expect(await lowerThreadPriority(name, 'idle')).toBe(0);
    } finally {
      process.env.PATH = path;
    }
    expect(niceOfThreads(name)).toEqual([19]);
    expect(policyOfThreads(name)).toEqual([SCHED_OTHER]);
  });

  it('with `nice`, lowers the thread to nice 19 and leaves its policy normal', async () => {
    const name = 'alk-prio-nice';
    await startIdleWorker(name);

    expect(await lowerThreadPriority(name, 'nice')).toBe(0);

    expect(niceOfThreads(name)).toEqual([19]);
    expect(policyOfThreads(name)).toEqual([SCHED_OTHER]);
  });
});

describe('backgroundPriority', () => {
  it.each([
    ['idle', 'idle'],
    ['nice', 'nice'],
    ['normal', 'normal'],
  ] as const)(`takes ${BACKGROUND_PRIORITY_ENV}=%s as %s`, (value, expected) => {
    expect(backgroundPriority({ [BACKGROUND_PRIORITY_ENV]: value })).toBe(expected);
  });

  it('is normal when the variable is unset or says something else, as lowered threads stalled forwarding on a busy machine', () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      expect(backgroundPriority({})).toBe('normal');
      expect(warn).not.toHaveBeenCalled();
      expect(backgroundPriority({ [BACKGROUND_PRIORITY_ENV]: 'lowest' })).toBe('normal');
      expect(backgroundPriority({ [BACKGROUND_PRIORITY_ENV]: 'lowest' })).toBe('normal');
      // A typo is said once, with what it could be, not taken silently.
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]?.[0])).toContain(
        `${BACKGROUND_PRIORITY_ENV}=lowest is not a priority Airlock knows (normal, nice or idle)`,
      );
    } finally {
      warn.mockRestore();
    }
  });
});
