import { describe, expect, it } from 'vitest';
import { EventOffsetRecorder, MAX_TIMED_EVENTS, packEventOffsets, unpackEventOffsets } from '../../../proxy/core/eventOffsets.ts';

describe('packEventOffsets / unpackEventOffsets', () => {
  it.each<[string, number[], number]>([
    ['nothing', [], 0],
    ['events in one read', [12, 12, 12], 3],
    ['gaps under 128 ms take a byte each', [0, 5, 127, 130], 4],
    ['a gap of 128 ms takes two bytes', [0, 128], 3],
    ['a long stream: 20 min after its start', [1, 1_200_000], 4],
    ['the largest 32-bit offset', [0, 0xffff_ffff], 6],
  ])('%s round-trips in the expected bytes', (_name, offsetsMs, packedBytes) => {
    const packed = packEventOffsets(offsetsMs);
    expect(packed.length).toBe(packedBytes);
    expect(unpackEventOffsets(packed)).toEqual(offsetsMs);
  });

  it('stores an offset below the one before it as that one (never a negative gap)', () => {
    expect(unpackEventOffsets(packEventOffsets([10, 7, 15]))).toEqual([10, 10, 15]);
  });

  it('drops a varint cut at its end and keeps the offsets before it', () => {
    const packed = packEventOffsets([3, 400]);
    expect(unpackEventOffsets(packed.subarray(0, packed.length - 1))).toEqual([3]);
  });

  it('packs a typed array as it packs numbers', () => {
    expect(packEventOffsets(Uint32Array.of(1, 2, 300))).toEqual(packEventOffsets([1, 2, 300]));
  });
});

describe('EventOffsetRecorder', () => {
  it('has nothing before any event', () => {
    expect(new EventOffsetRecorder().offsets()).toBeNull();
  });

  it('gives every event of one read that read’s offset, rounded to whole ms, growing past its first array', () => {
    const recorder = new EventOffsetRecorder();
    recorder.arrived(3, 10.4);
    recorder.arrived(100, 20.6);
    const offsets = recorder.offsets();
    expect(offsets).toBeInstanceOf(Uint32Array);
    expect(Array.from(offsets ?? [])).toEqual([10, 10, 10, ...Array.from({ length: 100 }, () => 21)]);
    // An exact-size copy: nothing beyond the events crosses to the log thread.
    expect(offsets?.buffer.byteLength).toBe(103 * 4);
  });

  it('times at most MAX_TIMED_EVENTS events', () => {
    const recorder = new EventOffsetRecorder();
    recorder.arrived(MAX_TIMED_EVENTS - 1, 1);
    recorder.arrived(5, 2);
    const offsets = recorder.offsets();
    expect(offsets?.length).toBe(MAX_TIMED_EVENTS);
    expect(offsets?.[MAX_TIMED_EVENTS - 1]).toBe(2);
  });
});
