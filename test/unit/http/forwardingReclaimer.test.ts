import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_RECLAIM_OPTIONS, startMemoryReclaimer } from '../../../proxy/core/memoryReclaimer.ts';
import { busySinceLastCheck, InFlightRequests } from '../../../proxy/http/forwardingReclaimer.ts';

const response = (): ServerResponse => ({}) as ServerResponse;

describe('busySinceLastCheck', () => {
  it('is busy with a request in flight, or one that came and went since the last check; idle after a check with neither', () => {
    const inFlight = new InFlightRequests();
    const busy = busySinceLastCheck(inFlight);
    expect(busy()).toBe(false);
    const first = response();
    inFlight.add(first);
    expect(busy()).toBe(true);
    expect(busy()).toBe(true);
    inFlight.delete(first);
    expect(busy()).toBe(false);
    const second = response();
    inFlight.add(second);
    inFlight.delete(second);
    expect(busy()).toBe(true);
    expect(busy()).toBe(false);
  });
});

describe('the forwarding reclaimer under light, steady use', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('never collects while requests come between every two checks, none in flight at one; collects once they stop for its idle checks', () => {
    // The bench's c=1 rounds: each Airlock answers 600 requests every 5-9 s, its loop under 5% busy, and a
    // check rarely met one in flight; its burst collection landed in a round, about 250 functions were
    // compiled again, and that run's warm CPU read 1.3x the floor or 1.8x (DESIGN.md, "Warm at c=1").
    vi.useFakeTimers();
    const collect = vi.fn();
    const options = {
      ...DEFAULT_RECLAIM_OPTIONS,
      checkIntervalMs: 1_000,
      idleIntervals: 2,
      minGrowthBytes: -Number.MAX_SAFE_INTEGER,
      maxIdleUtilization: 1,
      startupCollectionMs: null,
      followUpCollections: 0,
    };
    const inFlight = new InFlightRequests();
    const reclaimer = startMemoryReclaimer(busySinceLastCheck(inFlight), options, collect, null);
    for (let check = 0; check < 10; check += 1) {
      vi.advanceTimersByTime(500);
      const served = response();
      inFlight.add(served);
      inFlight.delete(served);
      vi.advanceTimersByTime(500);
    }
    expect(collect).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1_000);
    expect(collect).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1_000);
    expect(collect).toHaveBeenCalledTimes(1);
    reclaimer.stop();
  });
});
