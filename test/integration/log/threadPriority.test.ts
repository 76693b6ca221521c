import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { lowerThreadPriority } from '../../../proxy/log/threadPriority.ts';
import { niceOfThreads } from '../../support/procStat.ts';

describe('lowerThreadPriority', () => {
  it('gives the named worker thread the lowest priority and leaves the main thread as it was', async () => {
    const name = 'alk-prio-test';
    const worker = new Worker('setInterval(() => {}, 1000)', { eval: true, name });
    try {
      await once(worker, 'online');
      const mainNiceBefore = niceOfThreads('MainThread');
      expect(niceOfThreads(name)).toEqual([0]);

      expect(lowerThreadPriority(name)).toBe(1);

      expect(niceOfThreads(name)).toEqual([19]);
      expect(niceOfThreads('MainThread')).toEqual(mainNiceBefore);
    } finally {
      await worker.terminate();
    }
  });
});
