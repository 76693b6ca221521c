import type { DatabaseSync } from 'node:sqlite';
import type { Worker } from 'node:worker_threads';
import { trimWhenIdle } from '../../core/memoryReclaimer.ts';
import { startBackgroundWorker } from '../threadPriority.ts';

/**
 * The checkpoint thread: its own connection copies the WAL into the database file on a timer.
 * A checkpoint waits on fsync, which took 20-200 ms per automatic checkpoint on the writing
 * connection and stalled forwarding; here it stalls nobody. PASSIVE never blocks the writer.
 * Kept as source text so a bundled build needs no second entry point.
 */
const CHECKPOINT_THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { DatabaseSync } = require('node:sqlite');
const db = new DatabaseSync(workerData.databasePath);
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
let lastFrames = -1;
let quietChecks = 0;
const stop = () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
};
const timer = setInterval(() => {
  try {
    const { log, checkpointed } = checkpoint.get();
    quietChecks = log === lastFrames && checkpointed === log ? quietChecks + 1 : 0;
    lastFrames = log;
    // Ending on its own, with code 0, tells the caller the log was quiet, not that the thread failed.
    if (quietChecks >= workerData.stopAfterQuietChecks) stop();
  } catch (error) {
    parentPort.postMessage(error instanceof Error ? error.message : String(error));
  }
}, workerData.intervalMs);
parentPort.once('message', stop);
`;

export const DEFAULT_CHECKPOINT_INTERVAL_MS = 1_000;
/**
 * Checks in a row that found nothing new in the WAL, all of it copied, after which the thread ends
 * until the next write wakes it: a worker thread holds about 14 MB of RSS (its V8 heap, stack and
 * SQLite connection), a tenth of an idle proxy, for work that only follows writes. Starting it
 * again costs the forwarding thread 11-28 ms of CPU (in slices of at most 5 ms), so it waits out
 * the pauses within an agent's session, as long as the memory reclaimers do (30 s).
 */
export const DEFAULT_STOP_AFTER_QUIET_CHECKS = 30;
/** The thread's name, by which its priority is lowered: checkpoints are background work, like the log thread's. */
export const CHECKPOINT_THREAD_NAME = 'airlock-wal';
const SQLITE_DEFAULT_AUTOCHECKPOINT_PAGES = 1_000;

/** A connection that writes leaves checkpoints to the thread (an fsync on it would stall its caller). */
export function leaveCheckpointsToThread(db: DatabaseSync): void {
  db.exec('PRAGMA wal_autocheckpoint = 0');
}

/** The checkpoint thread died: the connection checkpoints on its own again, as SQLite does by default. */
export function checkpointOnOwnConnection(db: DatabaseSync): void {
  db.exec(`PRAGMA wal_autocheckpoint = ${SQLITE_DEFAULT_AUTOCHECKPOINT_PAGES}`);
}

export interface WalCheckpointer {
  /** A write is coming or was made: starts the thread if it had ended for lack of work. */
  wake(): void;
  /** Stops the thread after its current checkpoint and closes its connection. */
  close(): Promise<void>;
}

interface CheckpointOptions {
  intervalMs: number;
  /** Quiet checks in a row after which the thread ends until `wake`; unbounded when absent. */
  stopAfterQuietChecks?: number;
  /** Whether the thread starts now or at the first `wake`. */
  startNow?: boolean;
  onError: (error: unknown) => void;
  onStopped: () => void;
  /**
   * The thread runs (true, from its start) or ended because the log was quiet (false). While none
   * runs, the log thread's connection checkpoints on its own: writes that follow no request (retention,
   * the full-text backfill) must not grow the WAL unchecked, nor a write the ending thread missed.
   */
  onRunning?: (running: boolean) => void;
  /**
   * Called when the thread ended because the log was quiet. What it freed (its SQLite connection's
   * page cache, its isolate's malloc'd parts) goes back to glibc's arenas, resident until a trim;
   * it ends 30 s after the last write, when the reclaimers' trim after a burst may already be done.
   * Default: the forwarding thread trims at its next idle check (trimWhenIdle); null: none.
   */
  trimAfterQuietStop?: (() => unknown) | null;
}

/**
 * Checkpoints `databasePath` from a worker thread. The writing connection should turn its own
 * automatic checkpoints off, and back on if `onStopped` reports that the thread died (a thread
 * that ended because the log was quiet is not reported: the next `wake` starts another).
 */
export function startWalCheckpointer(databasePath: string, options: CheckpointOptions): WalCheckpointer {
  let running: { worker: Worker; exited: Promise<void> } | null = null;
  let closing = false;
  // A thread that died is not started again: the writer checkpoints on its own from then on.
  let died = false;
  const reportFailure = failureReporter(options.onError);
  const trimAfterQuietStop = options.trimAfterQuietStop === undefined ? trimWhenIdle : options.trimAfterQuietStop;
  const start = (): void => {
    const worker = startBackgroundWorker(CHECKPOINT_THREAD_SOURCE, {
      eval: true,
      name: CHECKPOINT_THREAD_NAME,
      workerData: {
        databasePath,
        intervalMs: options.intervalMs,
        stopAfterQuietChecks: options.stopAfterQuietChecks ?? Number.POSITIVE_INFINITY,
      },
    });
    worker.on('message', reportFailure);
    worker.on('error', (error) => options.onError(error));
    // Not events.once: it rejects when the thread reports an error, and the exit still follows.
    const exited = new Promise<void>((resolve) => {
      worker.once('exit', (code) => {
        running = null;
        if (closing) return resolve();
        if (code === 0) {
          options.onRunning?.(false);
          trimAfterQuietStop?.();
          return resolve();
        }
        died = true;
        options.onStopped();
        resolve();
      });
    });
    running = { worker, exited };
    options.onRunning?.(true);
  };
  if (options.startNow ?? true) start();
  return {
    wake() {
      if (running === null && !closing && !died) start();
    },
    async close() {
      if (closing) return;
      closing = true;
      if (running === null) return;
      // A close awaited last must see the exit of the unref'd thread.
      running.worker.ref();
      running.worker.postMessage('close');
      await running.exited;
    },
  };
}

/** A reminder of a failure that goes on (a full disk) every this many checks: about ten minutes at one a second. */
export const REPEATED_FAILURE_REMINDER_EVERY = 600;

/**
 * The thread reports each failed checkpoint, once a second while the disk stays full: said once,
 * again when the reason changes, and as a reminder now and then, not as a line a second on stderr.
 * A reminder says the same words (no count): the notice board keeps it as the same notice, where a
 * new text was a new notice and OS notification every ten minutes.
 */
export function failureReporter(onError: (error: Error) => void): (message: string) => void {
  let last: string | null = null;
  let repeats = 0;
  return (message) => {
    if (message === last) {
      repeats += 1;
      if (repeats % REPEATED_FAILURE_REMINDER_EVERY !== 0) return;
    } else {
      last = message;
      repeats = 0;
    }
    onError(new Error(`WAL checkpoint failed: ${message}`));
  };
}
