import { describe, expect, it } from 'vitest';
import { TimedQueue } from '../../../proxy/spend/timedQueue.ts';

describe('TimedQueue', () => {
  it.each([
    { name: 'nothing due', times: [5, 6, 7], cutoff: 4, kept: 3, dropped: [] },
    { name: 'the cutoff itself is dropped', times: [5, 6, 7], cutoff: 6, kept: 1, dropped: [5, 6] },
    { name: 'everything due', times: [5, 6, 7], cutoff: 100, kept: 0, dropped: [5, 6, 7] },
    { name: 'an empty queue', times: [], cutoff: 100, kept: 0, dropped: [] },
  ])('$name', ({ times, cutoff, kept, dropped }) => {
    const queue = new TimedQueue<number>((atMs) => atMs);
    for (const atMs of times) queue.push(atMs);
    const seen: number[] = [];
    queue.dropThrough(cutoff, (atMs) => seen.push(atMs));
    expect(queue.size).toBe(kept);
    expect(seen).toEqual(dropped);
  });

  it('keeps counting right across compactions, with entries pushed after each drop', () => {
    const queue = new TimedQueue<{ atMs: number }>((entry) => entry.atMs);
    let dropped = 0;
    for (let atMs = 0; atMs < 20_000; atMs += 1) {
      queue.push({ atMs });
      queue.dropThrough(atMs - 3_000, () => (dropped += 1));
      expect(queue.size).toBe(Math.min(atMs + 1, 3_000));
    }
    expect(dropped).toBe(20_000 - 3_000);
  });
});
