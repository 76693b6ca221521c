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
  let sinceYield = 0;
  for (const chunk of chunks) {
    for (let start = 0; start < chunk.length; ) {
      if (sinceYield >= sliceBytes) {
        await new Promise((resolve) => setImmediate(resolve));
        sinceYield = 0;
      }
      const end = Math.min(chunk.length, start + sliceBytes - sinceYield);
      copy.set(chunk.subarray(start, end), offset);
      offset += end - start;
      sinceYield += end - start;
      start = end;
    }
  }
  return copy;
}
