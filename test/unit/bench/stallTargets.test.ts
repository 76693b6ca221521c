import { describe, expect, it } from 'vitest';
import type { SmallDuringLargeResult } from '../../bench/stallScenario.ts';
import { checkStall, MAX_ADDED_SMALL_P99_MS, MAX_LOOP_STALL_MS } from '../../bench/targets.ts';

function run(p99Ms: number, loop: { maxMs: number; maxBusyMs: number } | null, failures = 0): SmallDuringLargeResult {
  const summary = { count: 100, p50Ms: 2, p99Ms, meanMs: 3, maxMs: p99Ms };
  const delay =
    loop === null ? null : { ...loop, p99Ms: 1, maxOwnDelayMs: null, longestGapCoreWaitMs: null, longestOwnDelayAsleepMs: null };
  return { alone: summary, duringLarge: { ...summary, failures }, largeStatuses: [], loopAlone: delay, loopDuringLarge: delay };
}

describe('checkStall', () => {
  it('passes a proxy that adds little to small requests and never holds its loop long', () => {
    const checks = checkStall({
      direct: run(40, null),
      undiciFloor: run(40, null),
      airlock: run(40 + MAX_ADDED_SMALL_P99_MS, { maxMs: 150, maxBusyMs: MAX_LOOP_STALL_MS - 1 }),
    });
    expect(checks.map((check) => check.pass)).toEqual([true, true]);
  });

  it('judges the loop by its CPU between turns, not by a delay the OS caused', () => {
    const [, loop] = checkStall({ direct: run(40, null), undiciFloor: run(40, null), airlock: run(40, { maxMs: 5, maxBusyMs: 500 }) });
    expect(loop?.pass).toBe(false);
    expect(loop?.measured).toContain('500.0 ms');
  });

  it('misses when small requests wait behind large bodies, or fail', () => {
    expect(
      checkStall({
        direct: run(40, null),
        undiciFloor: run(40, null),
        airlock: run(40 + MAX_ADDED_SMALL_P99_MS + 1, { maxMs: 1, maxBusyMs: 1 }),
      })[0]?.pass,
    ).toBe(false);
    expect(
      checkStall({ direct: run(40, null), undiciFloor: run(40, null), airlock: run(40, { maxMs: 1, maxBusyMs: 1 }, 1) })[0]?.pass,
    ).toBe(false);
  });
});
