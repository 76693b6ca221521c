import { describe, expect, it } from 'vitest';
import type { RequestLifecycleEvent } from '../../../proxy/contracts/lifecycle.ts';
import { nextSliceLength } from '../../../proxy/store/write/eventSlice.ts';
import { capturedBodies, endEvent, startEvent } from '../../support/lifecycleEvents.ts';

const start = (id: string): RequestLifecycleEvent => startEvent(id);
const endWithBody = (id: string, bodyBytes: number): RequestLifecycleEvent =>
  endEvent(id, { bodies: capturedBodies({ requestBody: Buffer.alloc(bodyBytes, 'a'), responseBody: null }) });

describe('nextSliceLength', () => {
  it.each<[string, RequestLifecycleEvent[], number]>([
    ['empty queue', [], 0],
    ['small events up to the event limit', [start('a'), start('b'), start('c'), start('d')], 3],
    ['bodies up to the byte limit', [endWithBody('a', 60), endWithBody('b', 30), endWithBody('c', 20)], 2],
    ['one body larger than the limit still goes alone', [endWithBody('a', 500), start('b')], 1],
    ['events without bodies after the byte limit wait', [endWithBody('a', 100), start('b')], 2],
  ])('%s', (_name, queue, expected) => {
    expect(nextSliceLength(queue, { maxEvents: 3, maxBodyBytes: 100 })).toBe(expected);
  });
});

describe('nextSliceLength from an offset', () => {
  it('counts from that event on, as if the events before it were gone', () => {
    const events = [endWithBody('a', 100), start('b'), endWithBody('c', 60), endWithBody('d', 60)];
    expect(nextSliceLength(events, { maxEvents: 3, maxBodyBytes: 100 }, 1)).toBe(2);
    expect(nextSliceLength(events, { maxEvents: 3, maxBodyBytes: 100 }, 4)).toBe(0);
  });
});
