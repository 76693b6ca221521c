import { COPY_SLICE_BYTES } from '../core/copyInSlices.ts';
import { bytesIn, type BodyEdit } from './bodyRewrite.ts';

/**
 * A body sent as one buffer (at most COPY_SLICE_BYTES: dispatchBody joins such a body for one
 * write) and the client's bytes, kept for a retry, a fallback step and the log, as one copy: the
 * sent buffer, made here once, and the client's bytes as views of it, with only the few bytes an
 * edit replaced (a model id, `stream_options`) copied apart. Joined at each dispatch instead,
 * undici kept the joined buffer for the whole exchange beside the client's socket reads: two copies
 * for as long as a stream ran (about 400 KB a stream with a 200 KB agent turn).
 * Null when one copy is all there is already (one read, unedited) or the body is larger.
 */
export function sharedBody(
  client: readonly Buffer[],
  sent: readonly Buffer[],
  sentBytes: number,
  edits: readonly BodyEdit[],
): { sent: Buffer; client: Buffer[] } | null {
  if (sentBytes > COPY_SLICE_BYTES || sent.length < 2) return null;
  const joined = Buffer.allocUnsafeSlow(sentBytes);
  let offset = 0;
  for (const piece of sent) offset += piece.copy(joined, offset);
  const views: Buffer[] = [];
  let sentAt = 0;
  let clientAt = 0;
  for (const edit of edits) {
    const unchangedBytes = edit.start - clientAt;
    if (unchangedBytes > 0) views.push(joined.subarray(sentAt, sentAt + unchangedBytes));
    if (edit.end > edit.start) views.push(ownCopy(bytesIn(client, edit)));
    sentAt += unchangedBytes + Buffer.byteLength(edit.text);
    clientAt = edit.end;
  }
  if (sentAt < sentBytes) views.push(joined.subarray(sentAt));
  return { sent: joined, client: views };
}

/** Outside Node's shared pool: a short slice of it held for a stream's life keeps the pool's 8 KiB alive. */
function ownCopy(bytes: Buffer): Buffer {
  const copy = Buffer.allocUnsafeSlow(bytes.length);
  bytes.copy(copy);
  return copy;
}
