import type { DatabaseSync } from 'node:sqlite';
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
const timer = setInterval(() => {
  try {
    db.exec('PRAGMA wal_checkpoint(PASSIVE)');
  } catch (error) {
    parentPort.postMessage(error instanceof Error ? error.message : String(error));
  }
}, workerData.intervalMs);
parentPort.once('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export const DEFAULT_CHECKPOINT_INTERVAL_MS = 1_000;
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
  /** Stops the thread after its current checkpoint and closes its connection. */
  close(): Promise<void>;
}

/**
 * Starts checkpointing `databasePath` from a worker thread. The writing connection should turn its
 * own automatic checkpoints off, and back on if `onStopped` reports that the thread died.
 */
export function startWalCheckpointer(
  databasePath: string,
  options: { intervalMs: number; onError: (error: unknown) => void; onStopped: () => void },
): WalCheckpointer {
  const worker = startBackgroundWorker(CHECKPOINT_THREAD_SOURCE, {
    eval: true,
    name: CHECKPOINT_THREAD_NAME,
    workerData: { databasePath, intervalMs: options.intervalMs },
  });
  let closing = false;
  worker.on('message', (message: string) => options.onError(new Error(`WAL checkpoint failed: ${message}`)));
  worker.on('error', (error) => options.onError(error));
  // Not events.once: it rejects when the thread reports an error, and the exit still follows.
  const exited = new Promise<void>((resolve) => {
    worker.once('exit', () => {
      if (!closing) options.onStopped();
      resolve();
    });
  });
  return {
    async close() {
      if (closing) return;
      closing = true;
      // A close awaited last must see the exit of the unref'd thread.
      worker.ref();
      worker.postMessage('close');
      await exited;
    },
  };
}
