import type { TopLevelScanner } from './jsonScan.ts';

/**
 * Bytes scanned per turn of the event loop: about 2 ms at the scanner's slowest (pure structure,
 * about 13 ns a byte here). Chunks arrive in bursts (libuv reads a socket up to 32 times, 2 MiB,
 * before it serves another), so scanning each as it arrived could hold the loop 25 ms.
 */
export const SCAN_SLICE_BYTES = 128 * 1024;

/**
 * Feeds chunks to a scanner in slices of at most `sliceBytes`, one slice per turn of the event
 * loop (setImmediate: after the turn's reads, so other sockets are served between slices).
 */
export class ScanQueue {
  readonly scanner: TopLevelScanner;
  private readonly sliceBytes: number;
  private readonly schedule: (run: () => void) => void;
  private queue: Buffer[] = [];
  private next = 0;
  private scheduled = false;
  private waiters: (() => void)[] = [];

  constructor(scanner: TopLevelScanner, options: { sliceBytes?: number; schedule?: (run: () => void) => void } = {}) {
    this.scanner = scanner;
    this.sliceBytes = options.sliceBytes ?? SCAN_SLICE_BYTES;
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
    let room = this.sliceBytes;
    while (room > 0 && this.next < this.queue.length) {
      const chunk = this.queue[this.next]!;
      const piece = chunk.length <= room ? chunk : chunk.subarray(0, room);
      if (piece === chunk) this.next += 1;
      else this.queue[this.next] = chunk.subarray(room);
      room -= piece.length;
      if (!this.scanner.feed(piece)) this.clear();
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
