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
});
