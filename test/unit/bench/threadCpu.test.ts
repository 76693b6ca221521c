import { describe, expect, it } from 'vitest';
import { EXITED_THREADS, threadCpuDelta, threadCpuMs, threadUsPerRequest } from '../../bench/threadCpu.ts';

describe('bench CPU split per thread', () => {
  it('subtracts readings by thread name, counting a thread that started between them from zero', () => {
    expect(threadCpuDelta({ node: 100, 'airlock-log': 20 }, { node: 130, 'airlock-log': 25, 'V8 worker': 4 })).toEqual({
      node: 30,
      'airlock-log': 5,
      'V8 worker': 4,
    });
  });

  it('sums the runs per thread and divides by all their requests, in microseconds', () => {
    const perRequest = threadUsPerRequest([
      { threadCpuMs: { node: 10, log: 2 }, requests: 100 },
      { threadCpuMs: { node: 30 }, requests: 300 },
    ]);
    expect(perRequest).toEqual({ node: 100, log: 5 });
  });

  it('reads this process: its own main thread is listed and the names add up to the process total', () => {
    const threads = threadCpuMs(process.pid);
    expect(Object.keys(threads)).toContain(EXITED_THREADS);
    expect(Object.values(threads).every((ms) => ms >= 0)).toBe(true);
    expect(Object.keys(threads).length).toBeGreaterThan(1);
  });

  it('reads live threads finer than /proc ticks: 5 ms of CPU is not read as 0 or 10 ms', () => {
    const liveMs = (threads: Record<string, number>): number =>
      Object.entries(threads).reduce((sum, [name, ms]) => (name === EXITED_THREADS ? sum : sum + ms), 0);
    const before = threadCpuMs(process.pid);
    const start = process.cpuUsage();
    let spentMs = 0;
    // Spends CPU until the process has used 5 ms more (counted by getrusage, which is exact).
    while (spentMs < 5) {
      const spent = process.cpuUsage(start);
      spentMs = (spent.user + spent.system) / 1000;
    }
    const readMs = liveMs(threadCpuMs(process.pid)) - liveMs(before);
    // Ticks of 10 ms give 0 or 10, about 5 off; the margin is for other threads between the readings.
    expect(Math.abs(readMs - spentMs)).toBeLessThan(4);
  });
});
