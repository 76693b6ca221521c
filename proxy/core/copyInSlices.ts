/** Bytes copied per turn of the event loop: about 1 ms of memcpy into fresh memory. */
export const COPY_SLICE_BYTES = 1024 * 1024;

/**
 * A body's chunks copied into one buffer of its own (to hand to a thread), a slice per turn of the
 * event loop: one copy of 64 MiB took 50 ms here, with every other request waiting.
 */
export async function copyInSlices(
  chunks: readonly Buffer[],
  byteLength: number,
  sliceBytes = COPY_SLICE_BYTES,
): Promise<Uint8Array<ArrayBuffer>> {
  const copy = new Uint8Array(byteLength);
  let offset = 0;
  for await (const piece of inTurnSlices(chunks, sliceBytes)) {
    copy.set(piece, offset);
    offset += piece.length;
  }
  return copy;
}

/**
 * A body's chunks as an async sequence that lets the event loop turn after each `sliceBytes` (a
 * chunk past it is cut into pieces of that size). undici writes a body stream's chunks as fast as
 * the socket takes them, and a loopback socket took megabytes in one turn, the receiver's TCP work
 * included: the longest such turn for a 10 MiB body was 2.1-8.7 ms, 1.9-4.0 with 1 MiB a turn.
 */
export async function* inTurnSlices(chunks: readonly Buffer[], sliceBytes = COPY_SLICE_BYTES): AsyncGenerator<Buffer> {
  let sinceYield = 0;
  for (const chunk of chunks) {
    for (let start = 0; start < chunk.length; ) {
      if (sinceYield >= sliceBytes) {
        await new Promise((resolve) => setImmediate(resolve));
        sinceYield = 0;
      }
      const end = Math.min(chunk.length, start + sliceBytes - sinceYield);
      yield start === 0 && end === chunk.length ? chunk : chunk.subarray(start, end);
      sinceYield += end - start;
      start = end;
    }
  }
}
