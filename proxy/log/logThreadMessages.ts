import type { RequestLifecycleEvent } from '../events/lifecycle.ts';
import type { RetentionPolicy, RetentionResult } from './retention.ts';

/** What the log thread is started with. */
export interface LogThreadData {
  dataDir: string;
  maxDbBytes?: number;
  bodyCapBytes: number;
}

/** Main thread → log thread. */
export type ToLogThread =
  /** `bodyBytes` comes back with `ingested`; without `withBodies`, rows are written and bodies not. */
  | { type: 'events'; events: RequestLifecycleEvent[]; secrets: string[]; withBodies: boolean; bodyBytes: number }
  | { type: 'flush'; id: number }
  | { type: 'bodies'; reason: string | null }
  | { type: 'retain'; id: number; policy: RetentionPolicy; nowMs: number }
  | { type: 'autocheckpoint' }
  | { type: 'close' };

/** Log thread → main thread. */
export type FromLogThread =
  | { type: 'ingested'; bodyBytes: number }
  | { type: 'flushed'; id: number }
  /** `result` is null when retention failed (the error comes as its own message). */
  | { type: 'retained'; id: number; result: RetentionResult | null }
  | { type: 'bodies'; reason: string | null }
  | { type: 'error'; error: Error };
