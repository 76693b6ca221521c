import type { CapturedBodies, RequestLifecycleEvent } from '../../contracts/lifecycle.ts';

type EndEvent = Extract<RequestLifecycleEvent, { type: 'end' }>;

/**
 * Bounds of a batch's first buffer. The client starts one near the size of the last batch (most are
 * alike), but not at a batch's that one large body grew: the buffer goes to the thread whole.
 */
const MIN_CAPACITY_BYTES = 64 * 1024;
const MAX_CAPACITY_BYTES = 1024 * 1024;
/** A blob length that means the field is null. */
const NULL_BLOB = 0xffff_ffff;

/**
 * The log's events as they are queued, encoded into one buffer outside the JavaScript heap and
 * moved to the log thread at the post. Holding the event objects until the post, or handing them
 * to V8's serializer (which keeps every object it wrote alive until it is collected itself), made
 * each young-generation collection of the forwarding thread copy the whole queue: 0.5-1 MB a
 * scavenge instead of 70 KB, and about 10 us more CPU a request (DESIGN.md, "What the log's queue
 * costs the collector"). An event is its JSON (which keeps strings exact, lone surrogates
 * included) and, for an `end`, its captured bodies' bytes copied after it.
 */
export class EventBatchWriter {
  #buffer: Buffer<ArrayBuffer>;
  #used = 0;

  constructor(capacityBytes = MIN_CAPACITY_BYTES) {
    // Not from Node's pool: the buffer is moved to the log thread whole.
    this.#buffer = Buffer.allocUnsafeSlow(Math.round(Math.min(MAX_CAPACITY_BYTES, Math.max(MIN_CAPACITY_BYTES, capacityBytes))));
  }

  /** Adds the event whole, or not at all: an event half written would make every later one read wrong. */
  add(event: RequestLifecycleEvent): void {
    const start = this.#used;
    try {
      this.#writeText(JSON.stringify(event.type === 'end' ? withoutBinary(event) : event));
      if (event.type === 'end') {
        this.#writeBlob(event.bodies.requestBody);
        this.#writeBlob(event.bodies.responseBody);
        const offsets = event.bodies.eventOffsetsMs;
        if (offsets) this.#writeBlob(new Uint8Array(offsets.buffer, offsets.byteOffset, offsets.byteLength));
      }
    } catch (error) {
      this.#used = start;
      throw error;
    }
  }

  /**
   * The batch, in a buffer that owns its memory (so moving it takes nothing from anyone else); the
   * writer is spent. A buffer more than half empty (a quiet 50 ms in a 64 KiB first buffer) is copied
   * to one of the batch's size: the log thread holds the whole buffer until it is written, and the
   * backlog budget counts what it holds.
   */
  finish(): Uint8Array<ArrayBuffer> {
    const used = this.#used;
    const buffer = this.#buffer;
    this.#buffer = Buffer.alloc(0);
    if (used * 2 >= buffer.length) return new Uint8Array(buffer.buffer, 0, used);
    const exact = new Uint8Array(used);
    exact.set(buffer.subarray(0, used));
    return exact;
  }

  #writeText(text: string): void {
    const length = Buffer.byteLength(text);
    this.#reserve(4 + length);
    this.#used = this.#buffer.writeUInt32LE(length, this.#used);
    this.#used += this.#buffer.write(text, this.#used);
  }

  #writeBlob(bytes: Uint8Array | null | undefined): void {
    if (bytes === null || bytes === undefined) {
      this.#reserve(4);
      this.#used = this.#buffer.writeUInt32LE(NULL_BLOB, this.#used);
      return;
    }
    this.#reserve(4 + bytes.byteLength);
    this.#used = this.#buffer.writeUInt32LE(bytes.byteLength, this.#used);
    this.#buffer.set(bytes, this.#used);
    this.#used += bytes.byteLength;
  }

  #reserve(bytes: number): void {
    const needed = this.#used + bytes;
    if (needed <= this.#buffer.length) return;
    const grown = Buffer.allocUnsafeSlow(Math.max(needed, this.#buffer.length * 2));
    this.#buffer.copy(grown, 0, 0, this.#used);
    this.#buffer = grown;
  }
}

/**
 * The end event with its binary fields left out of its JSON: they follow it as blobs. The stream's
 * event offsets, when there are any, are their count there (null and absent stay as they are).
 */
function withoutBinary(event: EndEvent): EncodedEnd {
  const offsets = event.bodies.eventOffsetsMs;
  return {
    ...event,
    bodies: { ...event.bodies, requestBody: null, responseBody: null, eventOffsetsMs: offsets ? offsets.length : offsets },
  };
}

type EncodedBodies = Omit<CapturedBodies, 'eventOffsetsMs'> & { eventOffsetsMs?: number | null };
type EncodedEnd = Omit<EndEvent, 'bodies'> & { bodies: EncodedBodies };

/** Events encoded one after the other (EventBatchWriter); what a fold or a flush posts as it is. */
export function encodeEvents(events: readonly RequestLifecycleEvent[]): Uint8Array<ArrayBuffer> {
  const writer = new EventBatchWriter();
  for (const event of events) writer.add(event);
  return writer.finish();
}

/** The events of a batch; bodies come back as Buffers that are views into `bytes`. */
export function decodeEvents(bytes: Uint8Array): RequestLifecycleEvent[] {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const events: RequestLifecycleEvent[] = [];
  let offset = 0;
  const readBlob = (): Buffer | null => {
    const length = view.readUInt32LE(offset);
    offset += 4;
    if (length === NULL_BLOB) return null;
    const blob = view.subarray(offset, offset + length);
    offset += length;
    return blob;
  };
  while (offset < view.length) {
    const length = view.readUInt32LE(offset);
    const event = JSON.parse(view.toString('utf8', offset + 4, offset + 4 + length)) as RequestLifecycleEvent;
    offset += 4 + length;
    if (event.type === 'end') {
      const { eventOffsetsMs: offsetsCount, ...encoded } = event.bodies as EncodedBodies;
      const bodies: CapturedBodies = { ...encoded, requestBody: readBlob(), responseBody: readBlob() };
      // Copied: a Uint32Array needs its start aligned to four bytes, which a blob's is not.
      if (typeof offsetsCount === 'number') bodies.eventOffsetsMs = new Uint32Array(Uint8Array.from(readBlob() ?? []).buffer);
      else if (offsetsCount === null) bodies.eventOffsetsMs = null;
      event.bodies = bodies;
    }
    events.push(event);
  }
  return events;
}
