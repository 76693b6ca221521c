import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

  it('reads this process: its main thread and the ended threads are listed, none below zero', () => {
    const threads = threadCpuMs(process.pid);
    expect(Object.keys(threads)).toContain(EXITED_THREADS);
    expect(Object.values(threads).every((ms) => ms >= 0)).toBe(true);
    expect(Object.keys(threads).length).toBeGreaterThan(1);
  });

  it("reads a live thread's time in nanoseconds (schedstat) and charges ended threads in ticks", () => {
    const root = mkdtempSync(join(tmpdir(), 'airlock-proc-'));
    // utime and stime are fields 14 and 15 of a stat line (11 and 12 after the command name).
    const stat = (utimeTicks: number, stimeTicks: number): string => `1 (node) S ${'0 '.repeat(10)}${utimeTicks} ${stimeTicks} 0 0\n`;
    const task = (threadId: number, name: string, runNs: number, ticks: number): void => {
      const dir = join(root, '42', 'task', String(threadId));
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'comm'), `${name}\n`);
      writeFileSync(join(dir, 'stat'), stat(ticks, 0));
      writeFileSync(join(dir, 'schedstat'), `${runNs} 100 7\n`);
    };
    try {
      task(42, 'node', 5_250_000, 1);
      task(43, 'V8Worker', 1_000_000, 0);
      task(44, 'V8Worker', 500_000, 0);
      // The process used 6 ticks (60 ms); its live threads 1 tick: ended threads 50 ms.
      writeFileSync(join(root, '42', 'stat'), stat(4, 2));
      expect(threadCpuMs(42, root)).toEqual({ node: 5.25, V8Worker: 1.5, [EXITED_THREADS]: 50 });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
