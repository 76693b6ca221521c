import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  compactingCollector,
  DEFAULT_RECLAIM_OPTIONS,
  isIdle,
  shouldReclaim,
  startMemoryReclaimer,
  trimWhenIdle,
} from '../../../proxy/core/memoryReclaimer.ts';

const MB = 1024 * 1024;
const idleGrown = { heapTotalBytes: 200 * MB, baselineBytes: 40 * MB, idleIntervals: DEFAULT_RECLAIM_OPTIONS.idleIntervals };

describe('isIdle', () => {
  it('counts a check as idle only with nothing in flight and the loop nearly unused', () => {
    expect(isIdle(0.01, false, DEFAULT_RECLAIM_OPTIONS)).toBe(true);
    expect(isIdle(0.01, true, DEFAULT_RECLAIM_OPTIONS)).toBe(false);
    expect(isIdle(0.3, false, DEFAULT_RECLAIM_OPTIONS)).toBe(false);
  });
});

describe('shouldReclaim', () => {
  it.each([
    { name: 'idle long enough after a burst that grew the heap', state: idleGrown, expected: true },
    {
      name: 'a pause shorter than the idle spell asked for',
      state: { ...idleGrown, idleIntervals: DEFAULT_RECLAIM_OPTIONS.idleIntervals - 1 },
      expected: false,
    },
    {
      name: 'growth below the threshold',
      state: { ...idleGrown, heapTotalBytes: 40 * MB + DEFAULT_RECLAIM_OPTIONS.minGrowthBytes - 1 },
      expected: false,
    },
    {
      // 200 requests at c=1 grew the forwarding heap 5.5-6 MB (2026-11-28): left alone, RSS stayed ~10 MB over idle.
      name: 'a light use that grew the heap 5 MB',
      state: { ...idleGrown, heapTotalBytes: 45 * MB },
      expected: true,
    },
    {
      name: 'growth at the threshold',
      state: { ...idleGrown, heapTotalBytes: 40 * MB + DEFAULT_RECLAIM_OPTIONS.minGrowthBytes },
      expected: true,
    },
  ])('$name -> $expected', ({ state, expected }) => {
    expect(shouldReclaim(state, DEFAULT_RECLAIM_OPTIONS)).toBe(expected);
  });
});

describe('compactingCollector', () => {
  it('runs a full collection in plain Node: an object nothing holds is gone after it', async () => {
    const collect = compactingCollector();
    expect(collect).toBeTypeOf('function');
    let held: object | null = { payload: new Array(1000).fill(1) };
    const ref = new WeakRef(held);
    held = null;
    // A WeakRef's target is kept until the job that created it ends.
    await new Promise((resolve) => setImmediate(resolve));
    collect?.();
    expect(ref.deref()).toBeUndefined();
  });
});

/** Checks every second; any idle loop counts, and a collection is due after two idle checks in a row; no follow-ups. */
const DUE_AFTER_TWO_IDLE_SECONDS = {
  ...DEFAULT_RECLAIM_OPTIONS,
  checkIntervalMs: 1_000,
  minGrowthBytes: -Number.MAX_SAFE_INTEGER,
  maxIdleUtilization: 1,
  idleIntervals: 2,
  startupCollectionMs: null,
  followUpCollections: 0,
};

describe('startMemoryReclaimer', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('collects after the idle checks in a row it asks for, never while busy, and not after stop', () => {
    vi.useFakeTimers();
    const collect = vi.fn();
    let busy = true;
    const options = DUE_AFTER_TWO_IDLE_SECONDS;
    const reclaimer = startMemoryReclaimer(() => busy, options, collect);
    vi.advanceTimersByTime(3_000);
    expect(collect).not.toHaveBeenCalled();
    busy = false;
    vi.advanceTimersByTime(1_000);
    expect(collect).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1_000);
    expect(collect).toHaveBeenCalledTimes(1);
    expect(reclaimer.reclaims).toBe(1);
    reclaimer.stop();
    vi.advanceTimersByTime(5_000);
    expect(collect).toHaveBeenCalledTimes(1);
  });

  const startupOptions = { ...DEFAULT_RECLAIM_OPTIONS, checkIntervalMs: 60_000, maxIdleUtilization: 1, startupCollectionMs: 2_000 };

  it('collects once the start-up delay has passed, whatever the heap grew, and counts it', () => {
    vi.useFakeTimers();
    const collect = vi.fn();
    const reclaimer = startMemoryReclaimer(() => false, startupOptions, collect);
    vi.advanceTimersByTime(1_999);
    expect(collect).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(collect).toHaveBeenCalledTimes(1);
    expect(reclaimer.reclaims).toBe(1);
    vi.advanceTimersByTime(10_000);
    expect(collect).toHaveBeenCalledTimes(1);
    reclaimer.stop();
  });

  it('runs the start-up collection at the first regular check when the early looks found the loop busy but it is idle', () => {
    vi.useFakeTimers();
    const collect = vi.fn();
    let busy = true;
    const options = { ...startupOptions, checkIntervalMs: 5_000, idleIntervals: 6, minGrowthBytes: Number.MAX_SAFE_INTEGER };
    const reclaimer = startMemoryReclaimer(() => busy, options, collect);
    vi.advanceTimersByTime(4_000);
    busy = false;
    vi.advanceTimersByTime(1_000);
    expect(collect).toHaveBeenCalledTimes(1);
    // A start-up collection has no follow-ups, and an unchanged heap no burst collection.
    vi.advanceTimersByTime(60_000);
    expect(collect).toHaveBeenCalledTimes(1);
    reclaimer.stop();
  });

  it('defers the start-up collection of a thread busy at its first regular check to its first long quiet, not a short one', () => {
    // At a short quiet inside the work it cleared what V8's optimized code embeds, compiled again in
    // the next rounds (DESIGN.md, "Warm at c=1"); never run, a busy start kept about 5 MB for good.
    vi.useFakeTimers();
    const collect = vi.fn();
    let busy = true;
    const options = { ...startupOptions, checkIntervalMs: 5_000, idleIntervals: 6, minGrowthBytes: Number.MAX_SAFE_INTEGER };
    const reclaimer = startMemoryReclaimer(() => busy, options, collect);
    vi.advanceTimersByTime(5_000);
    busy = false;
    vi.advanceTimersByTime(25_000);
    expect(collect).not.toHaveBeenCalled();
    busy = true;
    vi.advanceTimersByTime(5_000);
    busy = false;
    vi.advanceTimersByTime(25_000);
    expect(collect).not.toHaveBeenCalled();
    vi.advanceTimersByTime(5_000);
    expect(collect).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(60_000);
    expect(collect).toHaveBeenCalledTimes(1);
    expect(reclaimer.reclaims).toBe(1);
    reclaimer.stop();
  });

  it('skips the start-up collection while the loop was busy since start, and after stop', () => {
    vi.useFakeTimers();
    const collect = vi.fn();
    startMemoryReclaimer(() => false, startupOptions, collect).stop();
    const reclaimer = startMemoryReclaimer(() => false, { ...startupOptions, maxIdleUtilization: -1 }, collect);
    vi.advanceTimersByTime(5_000);
    expect(collect).not.toHaveBeenCalled();
    reclaimer.stop();
  });

  it("hands the allocator's free pages back at the next idle check after a collection, not while busy", () => {
    vi.useFakeTimers();
    const collect = vi.fn();
    const releaseFreed = vi.fn();
    let busy = false;
    const options = DUE_AFTER_TWO_IDLE_SECONDS;
    const reclaimer = startMemoryReclaimer(() => busy, options, collect, releaseFreed);
    vi.advanceTimersByTime(2_000);
    expect(collect).toHaveBeenCalledTimes(1);
    expect(releaseFreed).not.toHaveBeenCalled();
    busy = true;
    vi.advanceTimersByTime(1_000);
    expect(releaseFreed).not.toHaveBeenCalled();
    busy = false;
    vi.advanceTimersByTime(1_000);
    expect(releaseFreed).toHaveBeenCalledTimes(1);
    expect(collect).toHaveBeenCalledTimes(1);
    reclaimer.stop();
  });

  it('collects again at the idle checks right after a burst, then trims; a busy check ends the follow-ups', () => {
    vi.useFakeTimers();
    const order: string[] = [];
    let check = 0;
    let busyAt = -1;
    const options = { ...DUE_AFTER_TWO_IDLE_SECONDS, followUpCollections: 2 };
    const start = () =>
      startMemoryReclaimer(
        () => check === busyAt,
        options,
        () => order.push(`collect ${check}`),
        () => order.push(`trim ${check}`),
      );
    const quiet = start();
    for (check = 1; check <= 5; check += 1) vi.advanceTimersByTime(1_000);
    // Due at the second idle check, again at the next two, and the trim after them (a collection
    // is due at every second idle check here, so one follows the trim at check 5).
    expect(order.slice(0, 4)).toEqual(['collect 2', 'collect 3', 'collect 4', 'trim 5']);
    quiet.stop();

    order.length = 0;
    busyAt = 3;
    const interrupted = start();
    for (check = 1; check <= 4; check += 1) vi.advanceTimersByTime(1_000);
    expect(order).toEqual(['collect 2', 'trim 4']);
    interrupted.stop();
  });

  it('follows no start-up collection with more: only its trim', () => {
    vi.useFakeTimers();
    const order: string[] = [];
    let check = 0;
    const options = {
      ...DEFAULT_RECLAIM_OPTIONS,
      checkIntervalMs: 1_000,
      maxIdleUtilization: 1,
      startupCollectionMs: 500,
      followUpCollections: 2,
    };
    const reclaimer = startMemoryReclaimer(
      () => false,
      options,
      () => order.push(`collect ${check}`),
      () => order.push(`trim ${check}`),
    );
    vi.advanceTimersByTime(500);
    for (check = 1; check <= 3; check += 1) vi.advanceTimersByTime(1_000);
    expect(order).toEqual(['collect 0', 'trim 1']);
    reclaimer.stop();
  });

  it('runs the long-idle work at every check once idle for the checks it asks for, never while busy, before a due collection', () => {
    vi.useFakeTimers();
    const order: string[] = [];
    const busyAtCheck = [true, false, false, false, true, false, false];
    let check = 0;
    const options = DUE_AFTER_TWO_IDLE_SECONDS;
    const reclaimer = startMemoryReclaimer(
      () => busyAtCheck[check] ?? false,
      options,
      () => order.push(`collect ${check}`),
      null,
      () => order.push(`idle work ${check}`),
    );
    for (check = 0; check < busyAtCheck.length; check += 1) vi.advanceTimersByTime(1_000);
    // Idle at checks 1-3 and 5-6: the second idle check in a row and each after it; a collection resets the count.
    expect(order).toEqual(['idle work 2', 'collect 2', 'idle work 6', 'collect 6']);
    reclaimer.stop();
  });

  it('trims when another part asks (a stopped thread, the log thread), at the next idle check, once; a reclaimer that cannot trim ignores it', () => {
    vi.useFakeTimers();
    const trim = vi.fn();
    let busy = true;
    // Never collects on its own: the trim comes only from the ask.
    const options = {
      ...DEFAULT_RECLAIM_OPTIONS,
      checkIntervalMs: 1_000,
      minGrowthBytes: Number.MAX_SAFE_INTEGER,
      maxIdleUtilization: 1,
      startupCollectionMs: null,
    };
    const trimming = startMemoryReclaimer(() => busy, options, null, trim);
    const notTrimming = startMemoryReclaimer(() => false, options, null, null);
    vi.advanceTimersByTime(3_000);
    expect(trim).not.toHaveBeenCalled();
    trimWhenIdle();
    vi.advanceTimersByTime(2_000);
    expect(trim).not.toHaveBeenCalled();
    busy = false;
    vi.advanceTimersByTime(1_000);
    expect(trim).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(5_000);
    expect(trim).toHaveBeenCalledTimes(1);
    trimming.stop();
    notTrimming.stop();
  });
});
