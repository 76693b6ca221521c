import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { RequestLifecycleEvent } from '../../../proxy/contracts/lifecycle.ts';
import { RequestEvents } from '../../../proxy/contracts/requestEvents.ts';
import { streamProgressEstimate } from '../../../proxy/forward/accounting.ts';
import { STREAM_PROGRESS_INTERVAL_MS, type ProgressEstimate } from '../../../proxy/forward/progressTick.ts';
import { RequestTrace } from '../../../proxy/forward/trace.ts';

describe('streamProgressEstimate', () => {
  const prices = [{ model: 'm', inputPer1M: 2, outputPer1M: 8 }];
  it.each([
    {
      name: 'input is the body bytes / 3, output the text bytes / 3',
      byteLength: 300,
      outputBytes: 30,
      usage: { inputTokens: 100, outputTokens: 10 },
      cost: (100 * 2 + 10 * 8) / 1e6,
    },
    {
      name: 'nothing received yet still charges the input',
      byteLength: 3_000,
      outputBytes: 0,
      usage: { inputTokens: 1_000, outputTokens: 0 },
      cost: 0.002,
    },
    { name: 'partial tokens round up', byteLength: 1, outputBytes: 4, usage: { inputTokens: 1, outputTokens: 2 }, cost: (2 + 16) / 1e6 },
  ])('$name', ({ byteLength, outputBytes, usage, cost }) => {
    const estimate = streamProgressEstimate(
      { byteLength, upstreamModel: 'm', routedFrom: 'm', textBody: true },
      { prices, priceMultiplier: 1 },
    )(outputBytes);
    expect(estimate.usage).toEqual(usage);
    expect(estimate.costCredits).toBeCloseTo(cost, 15);
  });

  it('an unpriced model has usage and no cost', () => {
    expect(
      streamProgressEstimate(
        { byteLength: 30, upstreamModel: 'other', routedFrom: 'other', textBody: true },
        { prices, priceMultiplier: 1 },
      )(3),
    ).toEqual({
      usage: { inputTokens: 10, outputTokens: 1 },
      costCredits: null,
    });
  });
});

const ENDED = { usage: null, usageSource: null, costCredits: null };

describe('a stream publishes its progress', () => {
  let events: RequestLifecycleEvent[];
  let trace: RequestTrace;
  const seenBytes: number[] = [];
  const estimate: ProgressEstimate = (outputBytes) => {
    seenBytes.push(outputBytes);
    return { usage: { inputTokens: 5, outputTokens: outputBytes }, costCredits: outputBytes / 1e6 };
  };

  // One clock for the whole file: the progress tick's timer is started once per process.
  beforeAll(() => {
    vi.useFakeTimers();
  });
  afterAll(() => {
    vi.useRealTimers();
  });
  beforeEach(() => {
    events = [];
    seenBytes.length = 0;
    const bus = new RequestEvents();
    bus.subscribe((event) => events.push(event));
    trace = new RequestTrace(bus, 1024 * 1024);
    trace.estimateProgressWith(estimate);
  });
  // Ended, so the progress clock (module state shared with other files) stops with them.
  afterEach(() => trace.ended(200, ENDED));

  const progressEvents = (): RequestLifecycleEvent[] => events.filter((event) => event.type === 'progress');

  it('at its first text, then at most once per interval, counting UTF-8 bytes', () => {
    trace.delta('你好');
    trace.delta('hello');
    trace.delta('!');
    // The first text publishes at once; the rest of the interval only counts.
    expect(seenBytes).toEqual([6]);
    vi.advanceTimersByTime(STREAM_PROGRESS_INTERVAL_MS);
    trace.delta('é');
    expect(seenBytes).toEqual([6, 14]);
    expect(progressEvents()).toEqual([
      { type: 'progress', requestId: trace.requestId, usage: { inputTokens: 5, outputTokens: 6 }, costCredits: 6e-6 },
      { type: 'progress', requestId: trace.requestId, usage: { inputTokens: 5, outputTokens: 14 }, costCredits: 14e-6 },
    ]);
  });

  it('keeps counting text beyond what the capture keeps', () => {
    const small = new RequestTrace(new RequestEvents(), 4);
    const bytes: number[] = [];
    small.estimateProgressWith((outputBytes) => {
      bytes.push(outputBytes);
      return { usage: { inputTokens: 0, outputTokens: 0 }, costCredits: null };
    });
    small.delta('abcd');
    small.delta('efgh');
    vi.advanceTimersByTime(STREAM_PROGRESS_INTERVAL_MS);
    small.delta('ijkl');
    small.ended(200, ENDED);
    expect(bytes).toEqual([4, 12]);
  });
});

describe('the progress clock', () => {
  beforeAll(() => {
    vi.useFakeTimers();
  });
  afterAll(() => {
    vi.useRealTimers();
  });

  it('runs only while a stream with an estimate is open', () => {
    const noEstimate = (): { usage: { inputTokens: number; outputTokens: number }; costCredits: null } => ({
      usage: { inputTokens: 0, outputTokens: 0 },
      costCredits: null,
    });
    expect(vi.getTimerCount()).toBe(0);
    const first = new RequestTrace(new RequestEvents(), 1024);
    const second = new RequestTrace(new RequestEvents(), 1024);
    first.estimateProgressWith(noEstimate);
    second.estimateProgressWith(noEstimate);
    expect(vi.getTimerCount()).toBe(1);
    first.ended(200, ENDED);
    first.ended(200, ENDED);
    expect(vi.getTimerCount()).toBe(1);
    second.ended(200, ENDED);
    expect(vi.getTimerCount()).toBe(0);
  });
});
