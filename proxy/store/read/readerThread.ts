/**
 * The reader thread's entry point: the window's heavy reads of the log (spend over a month, the
 * filter counts, agent sessions) run here on a read-only connection of their own, so a read of a
 * second or two never holds up the thread that forwards requests. WAL lets this connection read a
 * snapshot beside the log thread's writes.
 */
import { DatabaseSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';
import { RequestLogQueries } from './queries.ts';
import { SessionQueries } from './sessionQueries.ts';
import type { FromReaderThread, ReaderReads, ReaderThreadData, ToReaderThread } from './readerMessages.ts';

if (parentPort === null) throw new Error('readerThread.ts runs as a worker thread only');
const port = parentPort;
const data = workerData as ReaderThreadData;
/** A read rarely waits: in WAL mode only a checkpoint's brief lock on a reset WAL makes it retry. */
const READ_BUSY_TIMEOUT_MS = 5_000;

const db = new DatabaseSync(data.databasePath, { readOnly: true, timeout: READ_BUSY_TIMEOUT_MS });
/** The secrets of the read being answered: set before each read, read by the masking (secretsNow.ts). */
let secretsOfThisRead: string[] = [];
const secretsNow = (): string[] => secretsOfThisRead;
const queries = new RequestLogQueries(db, secretsNow);
const sessions = new SessionQueries(db, secretsNow);
const hold = data.holdSignal === null ? null : new Int32Array(data.holdSignal);

const reads: ReaderReads = {
  listRequests: (filter) => queries.listRequests(filter),
  facets: (filter) => queries.facets(filter),
  getRequest: (id) => queries.getRequest(id),
  replaysOf: (id) => queries.replaysOf(id),
  spendByDay: (query, localBuckets) => queries.spendByDay(query, localBuckets),
  totals: (query) => queries.totals(query),
  modelStats: (range) => queries.modelStats(range),
  listSessions: (query) => sessions.listSessions(query),
  session: (sessionId) => sessions.session(sessionId),
  turns: (sessionId, query) => sessions.turns(sessionId, query),
  turnsThrough: (sessionId, cursor, limit) => sessions.turnsThrough(sessionId, cursor, limit),
};

function answer(message: ToReaderThread): FromReaderThread {
  try {
    if (hold !== null) {
      Atomics.add(hold, 1, 1);
      Atomics.wait(hold, 0, 0);
    }
    secretsOfThisRead = message.secrets;
    const read = reads[message.read] as (...args: unknown[]) => unknown;
    return { id: message.id, ok: true, value: read(...message.args) };
  } catch (error) {
    const fields = error as { errcode?: unknown; code?: unknown };
    return {
      id: message.id,
      ok: false,
      message: error instanceof Error ? error.message : String(error),
      errcode: typeof fields.errcode === 'number' ? fields.errcode : null,
      code: typeof fields.code === 'string' ? fields.code : null,
    };
  } finally {
    secretsOfThisRead = [];
  }
}

port.on('message', (message: ToReaderThread) => port.postMessage(answer(message)));
