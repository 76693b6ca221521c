import { describe, expect, it } from 'vitest';
import { summarizeStreams } from '../../bench/scenarios.ts';
import type { StreamTrace } from '../../bench/streams.ts';

const trace = (ttfbMs: number, deltaTimesMs: number[], extra: Partial<StreamTrace> = {}): StreamTrace => ({
  ttfbMs,
  deltaTimesMs,
  mergedReads: 0,
  sawDone: true,
  ...extra,
});

describe('summarizeStreams', () => {
  it.each([
    {
      name: 'the first token is the first byte plus the first delta, medians of each',
      traces: [trace(1, [10, 20]), trace(3, [12, 22]), trace(2, [11, 21])],
      expected: { streams: 3, ttfbP50Ms: 2, ttftP50Ms: 13, meanGapsMs: [10], mergedReads: 0, incompleteStreams: 0 },
    },
    {
      name: 'merged reads add up over the streams',
      traces: [trace(1, [10, 20], { mergedReads: 2 }), trace(1, [10, 20], { mergedReads: 1 })],
      expected: { mergedReads: 3, incompleteStreams: 0 },
    },
    {
      name: 'a stream short of its deltas, or without [DONE], is incomplete',
      traces: [trace(1, [10]), trace(1, [10, 20], { sawDone: false }), trace(1, [10, 20])],
      expected: { incompleteStreams: 2 },
    },
  ])('$name', ({ traces, expected }) => {
    expect(summarizeStreams(traces, 2)).toMatchObject(expected);
  });
});
