import { describe, expect, it } from 'vitest';
import { copyInSlices, inTurnSlices } from '../../../proxy/core/copyInSlices.ts';

describe('copyInSlices', () => {
  it('copies every chunk in order, and lets the event loop turn between slices', async () => {
    const chunks = Array.from({ length: 40 }, (_unused, index) => Buffer.alloc(100 * 1024, index));
    let done = false;
    const copying = copyInSlices(chunks, 40 * 100 * 1024, 1024 * 1024).then((copy) => {
      done = true;
      return copy;
    });
    const doneAtNextTurn = await new Promise<boolean>((resolve) => setImmediate(() => resolve(done)));
    expect(doneAtNextTurn).toBe(false);
    expect(Buffer.from(await copying).equals(Buffer.concat(chunks))).toBe(true);
  });
});

describe('inTurnSlices', () => {
  const SLICE = 1024 * 1024;

  it('gives every byte in order, cutting a chunk larger than a slice', async () => {
    const chunks = [Buffer.alloc(300 * 1024, 1), Buffer.alloc(2 * SLICE + 5, 2), Buffer.alloc(10, 3)];
    const pieces: Buffer[] = [];
    for await (const piece of inTurnSlices(chunks, SLICE)) pieces.push(piece);
    expect(Buffer.concat(pieces).equals(Buffer.concat(chunks))).toBe(true);
    expect(Math.max(...pieces.map((piece) => piece.length))).toBeLessThanOrEqual(SLICE);
  });

  it('gives a slice within one turn of the event loop and lets the loop turn before the next', async () => {
    const chunks = Array.from({ length: 32 }, (_unused, index) => Buffer.alloc(64 * 1024, index));
    let turned = false;
    setImmediate(() => {
      turned = true;
    });
    const turnedAt: boolean[] = [];
    for await (const _piece of inTurnSlices(chunks, SLICE)) turnedAt.push(turned);
    // 16 chunks of 64 KiB make the first slice, given before the loop turns; the rest after it.
    expect(turnedAt.slice(0, 16).every((value) => !value)).toBe(true);
    expect(turnedAt.slice(16).every(Boolean)).toBe(true);
  });
});
