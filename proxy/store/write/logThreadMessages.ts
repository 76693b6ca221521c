import type { EndedRowSummary } from '../../contracts/log.ts';
import type { RetentionPolicy, RetentionResult } from './retention.ts';
import type { SpendEntry, UnwrittenState } from './unwrittenSpend.ts';

/** What the log thread is started with. */
export interface LogThreadData {
  dataDir: string;
  maxDbBytes?: number;
  bodyCapBytes: number;
  /** Whether the connection checkpoints on its own: no checkpoint thread runs (yet, or any more). */
  ownCheckpoints: boolean;
}

/** Main thread → log thread. */
export type ToLogThread =
  /**
   * `events` is a batch from EventBatchWriter (eventBatch.ts), moved to the thread; `queuedBytes` (its size) comes
   * back with `ingested`; without `withBodies`, rows are written and bodies not.
   */
  | { type: 'events'; events: Uint8Array; secrets: string[]; withBodies: boolean; queuedBytes: number }
  /** Spend of requests folded on the main thread while the log was behind: written as summary rows; `folded` comes back. */
  | { type: 'fold'; entries: SpendEntry[]; secrets: string[] }
  | { type: 'flush'; id: number }
  | { type: 'bodies'; reason: string | null }
  | { type: 'retain'; id: number; policy: RetentionPolicy; nowMs: number; keepRowsFromMs: number }
  | { type: 'autocheckpoint'; on: boolean }
  | { type: 'close' };

/** Log thread → main thread. */
export type FromLogThread =
  /** `summaries`: the one-line summaries of the requests that ended in the batch. */
  | { type: 'ingested'; queuedBytes: number; summaries: EndedRowSummary[] }
  /** The oldest `fold` not yet answered is in the thread's unwritten spend (or written) now. */
  | { type: 'folded' }
  | { type: 'flushed'; id: number }
  /** `result` is null when retention failed (the error comes as its own message). */
  | { type: 'retained'; id: number; result: RetentionResult | null }
  | { type: 'bodies'; reason: string | null }
  /** What the database could not take changed (rows kept in memory, their spend, whether it is saved). */
  | { type: 'unwritten'; state: UnwrittenState }
  /** The thread gave memory back to malloc (idleRelease.ts): the forwarding thread trims it when idle. */
  | { type: 'released' }
  | { type: 'error'; error: Error };
