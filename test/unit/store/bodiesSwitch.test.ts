import { describe, expect, it } from 'vitest';
import { backOnMarginBytes, bodiesOffReason, lowDiskReason } from '../../../proxy/store/bodiesSwitch.ts';
import { DISK_FULL_REASON } from '../../../proxy/store/write/writer.ts';

const MB = 1024 * 1024;
const MIN_FREE_BYTES = 100 * MB;
const GB = 1024 ** 3;
const base = {
  minFreeDiskBytes: MIN_FREE_BYTES,
  usedBytes: 300 * 1024 * 1024,
  usedBytesWhenDisabled: 290 * 1024 * 1024,
  sizeLimited: false,
};

describe('bodiesOffReason', () => {
  it.each([
    { name: 'bodies on, room on the disk', reason: null, freeDiskBytes: 50 * GB, expected: null },
    { name: 'under the free-space floor', reason: null, freeDiskBytes: MIN_FREE_BYTES - 1, expected: lowDiskReason(MIN_FREE_BYTES) },
    { name: 'back over the floor', reason: lowDiskReason(MIN_FREE_BYTES), freeDiskBytes: MIN_FREE_BYTES * 2, expected: null },
    // Hovering at the floor (the WAL growing and truncated at checkpoints) must not flip bodies every recheck.
    {
      name: 'just over the floor',
      reason: lowDiskReason(MIN_FREE_BYTES),
      freeDiskBytes: MIN_FREE_BYTES + 1,
      expected: lowDiskReason(MIN_FREE_BYTES),
    },
    {
      name: 'over the floor by the margin',
      reason: lowDiskReason(MIN_FREE_BYTES),
      freeDiskBytes: MIN_FREE_BYTES + backOnMarginBytes(MIN_FREE_BYTES),
      expected: null,
    },
    {
      name: 'a full disk freed to just over the floor',
      reason: DISK_FULL_REASON,
      freeDiskBytes: MIN_FREE_BYTES + 1,
      expected: DISK_FULL_REASON,
    },
    // The alarm says to free disk space: once the user did, bodies come back, though the log grew since.
    { name: 'a full disk the user freed', reason: DISK_FULL_REASON, freeDiskBytes: 50 * GB, expected: null },
    { name: 'a full disk still full', reason: DISK_FULL_REASON, freeDiskBytes: 0, expected: lowDiskReason(MIN_FREE_BYTES) },
    { name: 'free space unknown', reason: DISK_FULL_REASON, freeDiskBytes: null, expected: DISK_FULL_REASON },
  ])('$name', ({ reason, freeDiskBytes, expected }) => {
    expect(bodiesOffReason({ ...base, reason, freeDiskBytes })).toBe(expected);
  });

  it('keeps a log at its own size limit off until retention made room in it, whatever the disk has', () => {
    const full = { ...base, reason: DISK_FULL_REASON, freeDiskBytes: 50 * GB, sizeLimited: true };
    expect(bodiesOffReason(full)).toBe(DISK_FULL_REASON);
    expect(bodiesOffReason({ ...full, usedBytes: base.usedBytesWhenDisabled - 1 })).toBeNull();
  });

  // Bodies stay off between the floor and the margin: a reason saying only "less than 100 MB is free"
  // was false there, and freeing space up to the floor it named did not bring them back.
  it('names the free space that turns bodies back on, true both under the floor and in the margin', () => {
    const underFloor = bodiesOffReason({ ...base, reason: null, freeDiskBytes: MIN_FREE_BYTES - 1 });
    const inMargin = bodiesOffReason({ ...base, reason: underFloor, freeDiskBytes: 105 * MB });
    expect(inMargin).toBe(underFloor);
    expect(inMargin).toContain('fell below 100 MB');
    expect(inMargin).toContain('until 110 MB is free');
    expect(inMargin).not.toContain('Less than 100 MB is free');
    expect(bodiesOffReason({ ...base, reason: inMargin, freeDiskBytes: 110 * MB })).toBeNull();
  });

  it.each([1 * MB, 100 * MB, 5 * GB])('names an amount that is enough to turn bodies back on at a %i byte floor', (floorBytes) => {
    const named = /until (\d+) MB is free/.exec(lowDiskReason(floorBytes))?.[1];
    expect(Number(named) * MB).toBeGreaterThanOrEqual(floorBytes + backOnMarginBytes(floorBytes));
    expect(
      bodiesOffReason({ ...base, minFreeDiskBytes: floorBytes, reason: lowDiskReason(floorBytes), freeDiskBytes: Number(named) * MB }),
    ).toBeNull();
  });
});
