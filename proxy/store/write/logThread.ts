/**
 * The log thread's entry point: it owns the writing connection, so masking, SQLite commits,
 * full-text indexing and retention never take turns of the event loop that forwards requests.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { EndedRowSummary } from '../../contracts/log.ts';
import { EventIngest } from './eventIngest.ts';
import { redactSecrets } from '../../core/redact.ts';
import { decodeEvents } from './eventBatch.ts';
import type { FromLogThread, LogThreadData, ToLogThread } from './logThreadMessages.ts';
import { runRetention, type RetentionPolicy, type RetentionResult } from './retention.ts';
import { openLogDatabase } from '../schema.ts';
import { clearUnwrittenSpend, hasRoomToRetry, readSavedSpend, saveUnwrittenSpend } from './unwrittenSpendFile.ts';
import { checkpointOnOwnConnection, leaveCheckpointsToThread } from './walCheckpointer.ts';
import { compactingCollector, DEFAULT_RECLAIM_OPTIONS, startMemoryReclaimer } from '../../core/memoryReclaimer.ts';
import { releaseIdleMemory } from './idleRelease.ts';
import { forgetRecentPieces } from './recentPieces.ts';

if (parentPort === null) throw new Error('logThread.ts runs as a worker thread only');
const port = parentPort;
const data = workerData as LogThreadData;
const send = (message: FromLogThread): void => port.postMessage(message);

const db = openLogDatabase({ dataDir: data.dataDir, maxDbBytes: data.maxDbBytes });
if (!data.ownCheckpoints) leaveCheckpointsToThread(db);
/** Errors cross as plain Errors (message and stack): other values, or added fields, might not be cloneable. */
function reportError(error: unknown): void {
  const plain = new Error(error instanceof Error ? error.message : String(error));
  if (error instanceof Error && error.stack !== undefined) plain.stack = error.stack;
  send({ type: 'error', error: plain });
}

// What an earlier run, or a thread that died, could not write: its spend is written as summary rows.
const saved = readSavedSpend(data.dataDir);
const ingest = new EventIngest(db, {
  bodyCapBytes: data.bodyCapBytes,
  onError: reportError,
  onBodiesState: (reason) => send({ type: 'bodies', reason }),
  spendRecord: {
    save: (entries) => saveUnwrittenSpend(data.dataDir, entries, Date.now()),
    clear: () => clearUnwrittenSpend(data.dataDir),
    hasRoom: () => hasRoomToRetry(data.dataDir),
  },
  carriedSpend: saved.kind === 'saved' ? saved.entries : [],
  onUnwritten: (state) => send({ type: 'unwritten', state }),
});
// A burst of events grows this thread's heap as it grows the forwarding thread's: given back once
// the forwarding thread has sent nothing for as long as its own reclaimer waits (30 s), and this
// loop is idle at one check. Its full-text backfill, which runs on after a load, delays the
// collection only while it runs. Collecting after every 5 s pause made the next burst regrow the
// heap (more collections, charged to every request of it): paired bench rounds 3 s apart did.
const QUIET_BEFORE_RECLAIM_MS = DEFAULT_RECLAIM_OPTIONS.checkIntervalMs * DEFAULT_RECLAIM_OPTIONS.idleIntervals;
let lastEventsAtMs = Number.NEGATIVE_INFINITY;
// A check after the collection, the connection's page cache goes back too, and the forwarding
// thread is asked to trim what it freed (idleRelease.ts), after 30 s without a logged request.
// Releasing it after every quiet spell, collection or not, was measured at an agent's pace and
// changed nothing: the bodies that fill the cache also grow the heap past the collection's mark.
// The pieces kept for the next turns (recentPieces.ts) go before that collection, so it frees them.
const collect = compactingCollector();
const reclaimer = startMemoryReclaimer(
  () => performance.now() - lastEventsAtMs < QUIET_BEFORE_RECLAIM_MS,
  { ...DEFAULT_RECLAIM_OPTIONS, idleIntervals: 1 },
  collect === null
    ? null
    : () => {
        forgetRecentPieces(db);
        collect();
      },
  () => {
    try {
      releaseIdleMemory(db, () => send({ type: 'released' }));
    } catch (error) {
      reportError(error);
    }
  },
);

/** Retention deletes bodies the full-text backlog may count, so the backlog is counted again after. */
function retain(policy: RetentionPolicy, nowMs: number, keepRowsFromMs: number): RetentionResult | null {
  try {
    const result = runRetention(db, policy, nowMs, keepRowsFromMs);
    ingest.recountBacklog();
    ingest.retryUnwritten();
    return result;
  } catch (error) {
    reportError(error);
    return null;
  }
}

function handle(message: ToLogThread): void {
  switch (message.type) {
    case 'events': {
      lastEventsAtMs = performance.now();
      // Answered for even when it fails (the error goes on to be reported): unanswered, its bytes
      // would count against the main thread's backlog budget for the rest of the run.
      let summaries: EndedRowSummary[] = [];
      try {
        summaries = ingest.ingest(decodeEvents(message.events), message.secrets, message.withBodies);
      } finally {
        send({ type: 'ingested', queuedBytes: message.queuedBytes, summaries });
      }
      return;
    }
    case 'fold':
      // The model names come from clients: masked as a row's are.
      ingest.addFoldedSpend(
        message.entries.map((entry) => ({ ...entry, model: entry.model === null ? null : redactSecrets(entry.model, message.secrets) })),
      );
      send({ type: 'folded' });
      return;
    case 'flush':
      ingest.writeHeldRows();
      send({ type: 'flushed', id: message.id });
      return;
    case 'bodies':
      ingest.setBodiesDisabled(message.reason);
      return;
    case 'retain':
      send({ type: 'retained', id: message.id, result: retain(message.policy, message.nowMs, message.keepRowsFromMs) });
      return;
    case 'autocheckpoint':
      if (message.on) checkpointOnOwnConnection(db);
      else leaveCheckpointsToThread(db);
      return;
    case 'close':
      reclaimer.stop();
      ingest.writeHeldRows();
      ingest.close();
      db.close();
      port.close();
  }
}

port.on('message', (message: ToLogThread) => {
  try {
    handle(message);
  } catch (error) {
    reportError(error);
  }
});
