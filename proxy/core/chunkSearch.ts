/** Offsets of `needle` in the chunks taken as one body, also across chunk seams; at most `limit`. */
export function offsetsInChunks(chunks: readonly Buffer[], needle: Buffer, limit: number): number[] {
  const offsets: number[] = [];
  let base = 0;
  let tail: Buffer = Buffer.alloc(0);
  for (const chunk of chunks) {
    // A needle across the seam starts in the tail and ends in this chunk.
    const seam = Buffer.concat([tail, chunk.subarray(0, needle.length - 1)]);
    const acrossSeam = seam.indexOf(needle);
    if (acrossSeam !== -1 && acrossSeam < tail.length) offsets.push(base - tail.length + acrossSeam);
    for (let at = chunk.indexOf(needle); at !== -1 && offsets.length < limit; at = chunk.indexOf(needle, at + needle.length)) {
      offsets.push(base + at);
    }
    if (offsets.length >= limit) break;
    // The last bytes of the body so far, however short the chunks: a needle may span several.
    const kept = needle.length - 1;
    tail = chunk.length >= kept ? chunk.subarray(chunk.length - kept) : Buffer.concat([tail, chunk]).subarray(-kept);
    base += chunk.length;
  }
  return offsets;
}
