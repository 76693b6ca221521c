import { deserialize, serialize } from 'node:v8';
import type { RequestLifecycleEvent } from '../../contracts/lifecycle.ts';
import type { EndedRowSummary } from '../../contracts/log.ts';
import type { RetentionPolicy, RetentionResult } from './retention.ts';
import type { UnwrittenState } from './unwrittenSpend.ts';

/** What the log thread is started with. */
export interface LogThreadData {
  dataDir: string;
  maxDbBytes?: number;
  bodyCapBytes: number;
}

/** Main thread → log thread. */
export type ToLogThread =
  /**
   * `events` is a batch from serializeEvents, moved to the thread; `bodyBytes` comes back with
   * `ingested`; without `withBodies`, rows are written and bodies not.
   */
  | { type: 'events'; events: Uint8Array; secrets: string[]; withBodies: boolean; bodyBytes: number }
  | { type: 'flush'; id: number }
  | { type: 'bodies'; reason: string | null }
  | { type: 'retain'; id: number; policy: RetentionPolicy; nowMs: number }
  | { type: 'autocheckpoint' }
  | { type: 'close' };

/** Log thread → main thread. */
export type FromLogThread =
  /** `summaries`: the one-line summaries of the requests that ended in the batch. */
  | { type: 'ingested'; bodyBytes: number; summaries: EndedRowSummary[] }
  | { type: 'flushed'; id: number }
  /** `result` is null when retention failed (the error comes as its own message). */
  | { type: 'retained'; id: number; result: RetentionResult | null }
  | { type: 'bodies'; reason: string | null }
  /** What the database could not take changed (rows kept in memory, their spend, whether it is saved). */
  | { type: 'unwritten'; state: UnwrittenState }
  | { type: 'error'; error: Error };

/**
 * A batch of events as one buffer that owns its memory, so posting it moves the buffer instead of
 * cloning every event: about 2 us a request on the forwarding thread instead of 3 (a batch of 800
 * bench requests). Node's serializer writes a Buffer's own bytes, never the pool behind it, and
 * returns a buffer of its own, which is what makes moving it safe (a unit test holds Node to that).
 */
export function serializeEvents(events: readonly RequestLifecycleEvent[]): Uint8Array<ArrayBuffer> {
  return serialize(events);
}

/** The events of serializeEvents; bodies come back as Buffers (views into `bytes`). */
export function deserializeEvents(bytes: Uint8Array): RequestLifecycleEvent[] {
  return deserialize(bytes) as RequestLifecycleEvent[];
}
