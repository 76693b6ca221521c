import { statfsSync } from 'node:fs';
import { DISK_FULL_REASON } from './write/writer.ts';

const MEGABYTE = 1024 * 1024;

/**
 * Why bodies are off for want of disk space. It names the amount that brings them back (the floor
 * plus the margin), which lies above the floor, and stays true while free space is between the two;
 * rounded up, so the floor it names is never under the real one and freeing what it names is enough.
 */
export function lowDiskReason(minFreeDiskBytes: number): string {
  const floorMegabytes = Math.ceil(minFreeDiskBytes / MEGABYTE);
  const backOnMegabytes = Math.ceil((minFreeDiskBytes + backOnMarginBytes(minFreeDiskBytes)) / MEGABYTE);
  return (
    `Free space on the disk fell below ${floorMegabytes} MB: request bodies are not logged until ${backOnMegabytes} MB is free. ` +
    'Free disk space to turn them back on.'
  );
}

export interface BodiesSwitchState {
  /** Why bodies are off now, or null while they are logged. */
  reason: string | null;
  /** Free bytes on the log's disk, null when the OS would not say. */
  freeDiskBytes: number | null;
  /** Below this much free disk space, bodies are not logged. */
  minFreeDiskBytes: number;
  /** Bytes the log's pages hold now, and when bodies went off. */
  usedBytes: number;
  usedBytesWhenDisabled: number | null;
  /** The log has a size limit of its own: a full log there says nothing about the disk. */
  sizeLimited: boolean;
}

/**
 * How far over the floor free space must be before bodies come back: a tenth of the floor (10 MB
 * at the default 100 MB). Near the floor, the WAL growing and truncated at each checkpoint (about
 * 4 MB at SQLite's default 1000-page autocheckpoint) and other programs' files move free space
 * across it; without a margin each move flipped bodies at the next recheck, printing a line on
 * `airlock serve` and changing the window's alarm every few seconds.
 */
export function backOnMarginBytes(minFreeDiskBytes: number): number {
  return Math.ceil(minFreeDiskBytes / 10);
}

/**
 * Why bodies should be off now, or null to log them: off below the free-space floor, back once
 * the disk is over it again by the margin (after a write found it full too) or retention freed
 * pages in the log.
 */
export function bodiesOffReason(state: BodiesSwitchState): string | null {
  const floorBytes = state.minFreeDiskBytes;
  if (state.freeDiskBytes !== null && state.freeDiskBytes < floorBytes) return lowDiskReason(floorBytes);
  if (state.reason === null) return null;
  const diskHasRoom =
    state.freeDiskBytes !== null && state.freeDiskBytes > floorBytes && state.freeDiskBytes >= floorBytes + backOnMarginBytes(floorBytes);
  if (state.reason === lowDiskReason(floorBytes)) return state.freeDiskBytes === null || diskHasRoom ? null : state.reason;
  if (state.usedBytesWhenDisabled !== null && state.usedBytes < state.usedBytesWhenDisabled) return null;
  // A full disk the user freed, as the alarm asks: the log's own size may have grown since.
  if (state.reason === DISK_FULL_REASON && !state.sizeLimited && diskHasRoom) return null;
  return state.reason;
}

/**
 * While bodies are off, how often the switch looks whether space came back: the log thread's
 * writes say when the disk is full, but nothing says when the user freed it. Read only at the
 * next retention run (every ten minutes), the alarm kept calling a freed disk full and no body
 * was kept until then. A check is a statfs and two pragmas.
 */
export const BODIES_RECHECK_INTERVAL_MS = 2_000;

export interface BodiesSwitchOptions {
  dataDir: string;
  minFreeDiskBytes: number;
  /** The log has a size limit of its own (see BodiesSwitchState). */
  sizeLimited: boolean;
  /** Bytes the log's pages hold now. */
  usedBytes: () => number;
  /** The switch turned bodies off or on: the log thread must follow. */
  onSwitch: (reason: string | null) => void;
  /** Why bodies are off changed, whoever changed it. */
  onChange: () => void;
  onError: (error: unknown) => void;
}

/** The main thread's side of the bodies switch: the reason, the log's size when it went off, and the recheck while off. */
export class BodiesSwitch {
  readonly #options: BodiesSwitchOptions;
  #reason: string | null = null;
  #usedBytesWhenDisabled: number | null = null;
  #recheck: NodeJS.Timeout | null = null;

  constructor(options: BodiesSwitchOptions) {
    this.#options = options;
  }

  /** Why bodies are not logged now; null while they are. */
  get reason(): string | null {
    return this.#reason;
  }

  /** Mirrors the log thread's switch (a write found the disk full) or this one's own decision. */
  note(reason: string | null): void {
    const changed = reason !== this.#reason;
    this.#reason = reason;
    if (reason === null) {
      this.#usedBytesWhenDisabled = null;
      this.#stopRecheck();
    } else {
      if (this.#usedBytesWhenDisabled === null) this.#safely(() => (this.#usedBytesWhenDisabled = this.#options.usedBytes()));
      this.#recheck ??= setInterval(() => this.#safely(() => this.update(this.#options.usedBytes())), BODIES_RECHECK_INTERVAL_MS);
      this.#recheck.unref();
    }
    if (changed) this.#options.onChange();
  }

  /** Bodies go off below the free-space floor and come back once space was freed past a margin (bodiesOffReason). */
  update(usedBytes: number): void {
    const reason = bodiesOffReason({
      reason: this.#reason,
      freeDiskBytes: freeDiskBytes(this.#options.dataDir),
      minFreeDiskBytes: this.#options.minFreeDiskBytes,
      usedBytes,
      usedBytesWhenDisabled: this.#usedBytesWhenDisabled,
      sizeLimited: this.#options.sizeLimited,
    });
    if (reason === this.#reason) return;
    this.note(reason);
    this.#options.onSwitch(reason);
  }

  close(): void {
    this.#stopRecheck();
  }

  #stopRecheck(): void {
    if (this.#recheck !== null) clearInterval(this.#recheck);
    this.#recheck = null;
  }

  #safely(work: () => unknown): void {
    try {
      work();
    } catch (error) {
      this.#options.onError(error);
    }
  }
}

function freeDiskBytes(dir: string): number | null {
  try {
    const stats = statfsSync(dir);
    return Number(stats.bavail) * Number(stats.bsize);
  } catch {
    return null;
  }
}
