import type { TopLevelScanner } from './jsonScan.ts';

/**
 * A body's first bytes, scanned as they arrive (a small body is never queued, and a large one's
 * early forward is decided on them, arrivingBody.ts): about 2 ms at the scanner's slowest once
 * optimised (pure structure, about 13 ns a byte here), 3-5 ms before (bench probes, 2026-11-28).
 */
export const FIRST_SCAN_BYTES = 128 * 1024;

/**
 * The most a slice scans. Chunks arrive in bursts (libuv reads a socket up to 32 times, 2 MiB,
 * before it serves another), so scanning each as it arrived could hold the loop 25 ms; the clock
 * (SCAN_SLICE_MS) bounds a slice of structure, this one of text, which scans at about 10 GB/s:
 * at 128 KiB a turn a 10 MB body's scan fell behind its reads and its end waited for the turns.
 */
export const SCAN_SLICE_MAX_BYTES = 1024 * 1024;

/**
 * A slice also ends once it has run this long: the scanner's speed is not fixed. In the bench's
 * probes (issue 20, 2026-11-28: `--cpu-prof` at 0.1 ms lined up with the loop's turns) one slice of
 * 3.9 MiB of small keys took 3-5 ms, the scanner's code not optimised yet for that shape and its
 * core shared; the same slice takes 0.5 ms once optimised.
 */
const SCAN_SLICE_MS = 1;
/** The clock is read between steps of this size: 16 KiB took at most 1 ms in those probes. */
const SCAN_STEP_BYTES = 16 * 1024;

/**
 * Feeds chunks to a scanner in slices of at most `sliceBytes` and about `sliceMs`, one slice per
 * turn of the event loop (setImmediate: after the turn's reads, so other sockets are served
 * between slices).
 */
export class ScanQueue {
  readonly scanner: TopLevelScanner;
  private readonly sliceBytes: number;
  private readonly stepBytes: number;
  private readonly sliceMs: number;
  private readonly now: () => number;
  private readonly schedule: (run: () => void) => void;
  private queue: Buffer[] = [];
  private next = 0;
  private scheduled = false;
  private waiters: (() => void)[] = [];

  constructor(
    scanner: TopLevelScanner,
    options: {
      sliceBytes?: number;
      stepBytes?: number;
      sliceMs?: number;
      now?: () => number;
      schedule?: (run: () => void) => void;
    } = {},
  ) {
    this.scanner = scanner;
    this.sliceBytes = options.sliceBytes ?? SCAN_SLICE_MAX_BYTES;
    this.stepBytes = options.stepBytes ?? SCAN_STEP_BYTES;
    this.sliceMs = options.sliceMs ?? SCAN_SLICE_MS;
    this.now = options.now ?? (() => performance.now());
    this.schedule = options.schedule ?? ((run) => setImmediate(run));
  }

  push(chunk: Buffer): void {
    this.queue.push(chunk);
    if (!this.scheduled) {
      this.scheduled = true;
      this.schedule(() => this.runSlice());
    }
  }

  /** Resolves once every chunk pushed so far has been scanned (or the scan stopped). */
  drained(): Promise<void> {
    if (!this.scheduled) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Drops what is not scanned yet (the body is refused or abandoned). */
  clear(): void {
    this.queue = [];
    this.next = 0;
  }

  private runSlice(): void {
    const startedAtMs = this.now();
    let room = this.sliceBytes;
    while (room > 0 && this.next < this.queue.length) {
      const chunk = this.queue[this.next]!;
      const stepBytes = Math.min(room, this.stepBytes);
      const piece = chunk.length <= stepBytes ? chunk : chunk.subarray(0, stepBytes);
      if (piece === chunk) this.next += 1;
      else this.queue[this.next] = chunk.subarray(stepBytes);
      room -= piece.length;
      if (!this.scanner.feed(piece)) this.clear();
      else if (this.now() - startedAtMs >= this.sliceMs) break;
    }
    if (this.next < this.queue.length) {
      this.schedule(() => this.runSlice());
      return;
    }
    this.clear();
    this.scheduled = false;
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }
}
