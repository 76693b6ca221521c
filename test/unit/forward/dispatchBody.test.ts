import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { COPY_SLICE_BYTES } from '../../../proxy/core/copyInSlices.ts';
import { dispatchBody } from '../../../proxy/forward/upstreamClient.ts';

const piece = (bytes: number, fill: string) => Buffer.alloc(bytes, fill);

describe('dispatchBody', () => {
  it('sends no body for none', () => {
    expect(dispatchBody(null)).toBeNull();
    expect(dispatchBody([])).toBeNull();
  });

  it('sends a single piece as it is', () => {
    const only = piece(10, 'a');
    expect(dispatchBody([only])).toBe(only);
  });

  // Each piece of a Readable was a write (and a packet) of its own: a spliced streamed chat body went out in three.
  it.each([
    ['a splice', [piece(1, '{'), piece(40, 's'), piece(80, 'm')]],
    ['socket reads up to the copy limit', [piece(COPY_SLICE_BYTES / 2, 'a'), piece(COPY_SLICE_BYTES / 2, 'b')]],
  ])('sends %s as one buffer holding every byte in order', (_label, pieces) => {
    const body = dispatchBody(pieces);
    expect(Buffer.isBuffer(body)).toBe(true);
    expect((body as Buffer).equals(Buffer.concat(pieces))).toBe(true);
  });

  it('sends a larger body as a stream of slices, never one copy', async () => {
    const pieces = [piece(COPY_SLICE_BYTES, 'a'), piece(3, 'b')];
    const body = dispatchBody(pieces);
    expect(body).toBeInstanceOf(Readable);
    const received: Buffer[] = [];
    for await (const chunk of body as Readable) received.push(chunk as Buffer);
    expect(received.every((chunk) => chunk.length <= COPY_SLICE_BYTES)).toBe(true);
    expect(Buffer.concat(received).equals(Buffer.concat(pieces))).toBe(true);
  });
});
