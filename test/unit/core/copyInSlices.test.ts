import { describe, expect, it } from 'vitest';
import { copyInSlices } from '../../../proxy/core/copyInSlices.ts';

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
