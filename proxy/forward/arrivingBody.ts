import { Readable } from 'node:stream';
import { MAX_JSON_NESTING_DEPTH } from '../contracts/defaults.ts';
import type { LocalRefusal } from '../contracts/ports.ts';
import type { TopLevelScan } from './jsonScan.ts';
import { uploadStalled, UploadTimedOutError } from './uploadStall.ts';

/**
 * A body declared at least this large, whose plan is settled by its first bytes, goes upstream
 * while it arrives. Below it, reading it whole first costs about a millisecond on loopback (the
 * 10 MB bench body's whole-read cost 12-15 ms over the piping floor, about 1.3 ms a MiB), less
 * than the bookkeeping a streamed upload adds; above it, that wait grows with every byte.
 */
export const ARRIVING_BODY_MIN_BYTES = 1024 * 1024;

/**
 * What a plan read from a JSON body's first bytes that its end must not change: whether it streams
 * (a `"stream": true` first written near the end would ask for an answer the plan did not make).
 * Any member the scan reads repeated anywhere, or named in another letter case, is refused too.
 */
export type PlannedMembers = Pick<TopLevelScan, 'stream'>;

/**
 * A request body that is still arriving while its request goes upstream: the client's chunks kept
 * (for a retry, a fallback and the log) in the array the read goes on filling, and what is sent:
 * the plan's bytes for the chunks seen when it was made (its model spliced in), then each later
 * client chunk as it comes. An upload that breaks (the client leaves, the server's requestTimeout
 * runs out) or whose end contradicts the plan fails: every reader's stream errors, so undici aborts the upstream request before its end,
 * and the gateway never has a whole request to run.
 */
export class ArrivingBody {
  /** The client's chunks, the same array the body's read appends to. */
  readonly clientChunks: Buffer[];
  /** The client's whole size (its Content-Length). */
  readonly declaredBytes: number;
  #head: Buffer[] = [];
  /** The whole sent body's size: its last piece waits until the end is checked. */
  #sentBytes = 0;
  #headChunks = 0;
  #state: 'arriving' | 'complete' | 'failed' = 'arriving';
  /** What the end said against the plan (the refusal's words), null when it agreed or has not come. */
  #contradiction: string | null = null;
  #failure: Error | null = null;
  readonly #waiting = new Set<() => void>();
  #planned: PlannedMembers | null = null;
  #onChunk: ((chunk: Buffer) => void) | null = null;
  #arrivedBytes = 0;

  constructor(clientChunks: Buffer[], declaredBytes: number) {
    this.clientChunks = clientChunks;
    this.declaredBytes = declaredBytes;
    for (const chunk of clientChunks) this.#arrivedBytes += chunk.length;
  }

  /** How many of the client's bytes have come so far. */
  get arrivedBytes(): number {
    return this.#arrivedBytes;
  }

  /** Whether the client is still sending: fewer of its bytes have come than it declared. */
  get uploading(): boolean {
    return this.#arrivedBytes < this.declaredBytes;
  }

  /**
   * What the plan sends for the first `clientChunkCount` chunks, and the scan members it read:
   * the end of the body must not contradict them (a duplicate `model` later, say).
   */
  planned(head: Buffer[], clientChunkCount: number, members: PlannedMembers): void {
    this.#head = head;
    this.#headChunks = clientChunkCount;
    let headBytes = 0;
    let clientBytes = 0;
    for (const chunk of head) headBytes += chunk.length;
    for (let index = 0; index < clientChunkCount; index += 1) clientBytes += this.clientChunks[index]!.length;
    this.#sentBytes = headBytes + this.declaredBytes - clientBytes;
    this.#planned = { stream: members.stream };
  }

  get complete(): boolean {
    return this.#state === 'complete';
  }

  /**
   * Why Airlock refused the body: its end contradicted the plan, or it did not arrive within the
   * request timeout (null: neither). `sentOn`: whether Airlock had begun sending it to a gateway
   * (a held profile's request waits for its first fallback step with nothing sent).
   */
  refusal(sentOn: boolean): LocalRefusal | null {
    if (this.#failure instanceof UploadTimedOutError) return this.#failure.refusal(sentOn);
    if (this.#contradiction === null) return null;
    const sent = sentOn
      ? 'and Airlock had begun sending it on: the gateway was stopped before the end of the body'
      : 'and nothing was sent to the gateway';
    return {
      status: 400,
      errorClass: 'invalid_request',
      message: `the request body's top-level ${this.#contradiction}, ${sent}. Send each top-level member once, spelled as documented, before any large one.`,
    };
  }

  /** The 408 for this body still arriving when the profile's total timeout ran out; `sentOn` as refusal's. */
  stalledAtTotalTimeout(totalTimeoutMs: number, sentOn: boolean): LocalRefusal {
    return uploadStalled(this.#arrivedBytes, this.declaredBytes, { kind: 'total', totalTimeoutMs }, sentOn);
  }

  /** The bytes to send, whole: only once complete. */
  sentChunks(): Buffer[] {
    return [...this.#head, ...this.clientChunks.slice(this.#headChunks)];
  }

  /** Each chunk appended from now on (the log's capture takes them as they come). */
  onChunk(listener: (chunk: Buffer) => void): void {
    this.#onChunk = listener;
  }

  /** A chunk was appended to `clientChunks`. */
  arrived(): void {
    const chunk = this.clientChunks[this.clientChunks.length - 1]!;
    this.#arrivedBytes += chunk.length;
    this.#onChunk?.(chunk);
    this.#wake();
  }

  /** The whole body is in and scanned: refused when its end contradicts what the plan read. */
  ended(scan: TopLevelScan): void {
    const what = this.#planned === null ? null : contradiction(this.#planned, scan);
    if (what === null) {
      this.#state = 'complete';
      this.#wake();
      return;
    }
    this.#contradiction = what;
    this.fail(new Error(`the request body's top-level ${what}`));
  }

  get hasFailed(): boolean {
    return this.#state === 'failed';
  }

  fail(error: Error): void {
    if (this.#state !== 'arriving') return;
    this.#state = 'failed';
    this.#failure = error;
    this.#wake();
  }

  /** Resolves once the body is whole; rejects with the reason when it will never be. */
  whenComplete(): Promise<void> {
    if (this.#state === 'complete') return Promise.resolve();
    if (this.#state === 'failed') return Promise.reject(this.#failure);
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if (this.#state === 'arriving') return;
        this.#waiting.delete(check);
        if (this.#state === 'complete') resolve();
        else reject(this.#failure);
      };
      this.#waiting.add(check);
    });
  }

  /** The sent bytes from the first, each piece as soon as it is here: one upstream attempt's body. */
  readable(): Readable {
    let headIndex = 0;
    let clientIndex = this.#headChunks;
    let waiting = false;
    let pushedBytes = 0;
    // Called by the stream for more and by every arrival while it waits: a read that found nothing stays pending until a push.
    const pump = (): void => {
      if (waiting) this.#waiting.delete(pump);
      waiting = false;
      for (;;) {
        const fromHead = headIndex < this.#head.length;
        const next = fromHead ? this.#head[headIndex] : this.clientChunks[clientIndex];
        // The piece that completes the body goes only once its end agrees with the plan: until then the gateway has no whole request to run.
        if (next !== undefined && (this.#state === 'complete' || pushedBytes + next.length < this.#sentBytes)) {
          if (fromHead) headIndex += 1;
          else clientIndex += 1;
          pushedBytes += next.length;
          if (!stream.push(next)) return;
          continue;
        }
        if (this.#state === 'complete') stream.push(null);
        else if (this.#state === 'failed') stream.destroy(this.#failure ?? undefined);
        else {
          waiting = true;
          this.#waiting.add(pump);
        }
        return;
      }
    };
    const stream = new Readable({
      read: pump,
      destroy: (error, callback) => {
        this.#waiting.delete(pump);
        callback(error);
      },
    });
    return stream;
  }

  #wake(): void {
    for (const waiter of [...this.#waiting]) waiter();
  }
}

/**
 * What the whole body's scan says against the plan, in words; null when nothing. A member read
 * here written twice is refused wherever the repeat lies (parsers differ on which one counts), and
 * so is nesting past the scan's limit, after which a repeat could not be seen; the
 * plan reads `stream` as true or not, so a late `"stream": false` changes nothing.
 */
function contradiction(planned: PlannedMembers, scan: TopLevelScan): string | null {
  // The scan stops at the nesting limit: a member written after it (a repeat) would go unread.
  if (scan.tooDeep)
    return `objects and arrays nest more than ${MAX_JSON_NESTING_DEPTH} levels deep near its end, past which Airlock cannot read its members (as a body read whole is refused)`;
  if (scan.repeatedMember !== null)
    return `"${scan.repeatedMember}" is written more than once (relays and gateways differ on which one they read: the first or the last)`;
  if (scan.memberInAnotherCase !== null) {
    const { written, member } = scan.memberInAnotherCase;
    return `"${written}" differs from "${member}" only in letter case (relays written in Go read it as "${member}", others ignore it)`;
  }
  if ((planned.stream === true) !== (scan.stream === true)) return '"stream" near its end differs from what its start said';
  return null;
}
