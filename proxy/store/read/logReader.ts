import { OnDemandThread, IDLE_THREAD_STOP_MS } from '../../core/onDemandThread.ts';
import { threadScriptUrl } from '../../core/threadScript.ts';
import type { FromReaderThread, ReaderReads, ReadName, ToReaderThread } from './readerMessages.ts';

/** The thread's script: `readerThread.ts`, or the bundled `readerThread.js` next to main.js. */
const READER_THREAD_URL = threadScriptUrl(import.meta.url, 'readerThread');
/** The OS thread's name (at most 15 characters on Linux). */
const READER_THREAD_NAME = 'airlock-reader';

/** Each read of ReaderReads, answered later. */
export type AsyncReads = { [Name in ReadName]: (...args: Parameters<ReaderReads[Name]>) => Promise<ReturnType<ReaderReads[Name]>> };

/**
 * A read the reader thread could not answer: it died (or was stopped as the log closed) before
 * answering. The window shows the message; the next read starts a new thread.
 */
export class LogReaderUnavailableError extends Error {}

/** An error the thread's read raised, rebuilt with SQLite's fields, so damage is recognised as on the main connection. */
class LogReadError extends Error {
  readonly errcode: number | undefined;
  readonly code: string | undefined;

  constructor(message: string, errcode: number | null, code: string | null) {
    super(message);
    if (errcode !== null) this.errcode = errcode;
    if (code !== null) this.code = code;
  }
}

interface Waiter {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

let holdSignalForNewThreads: SharedArrayBuffer | null = null;

/**
 * Test hook: reader threads started from now on count each read in the signal's second Int32 and
 * wait before it while the first is 0 (null: none do). Shows that a read held inside the thread
 * holds up nothing else.
 * @internal
 */
export function holdReadsOfNewReaderThreads(signal: SharedArrayBuffer | null): void {
  holdSignalForNewThreads = signal;
}

export interface LogReaderOptions {
  databasePath: string;
  /** The secrets known now: each read is masked with them (secretsNow.ts), as the main connection's are. */
  knownSecrets: () => string[];
  /** The thread raised an error outside a read (already redacted). */
  onError: (error: Error) => void;
  /** Tests start their own stand-in script (one that dies). */
  threadUrl?: URL;
}

/**
 * The window's reads of the log on a thread of its own, with a read-only connection to the same
 * file. Started at the first read and stopped after IDLE_THREAD_STOP_MS without one (a worker
 * holds about 14 MB); a thread that dies fails the reads it had, and the next read starts another.
 */
export class LogReader {
  private readonly thread: OnDemandThread<ToReaderThread, FromReaderThread, Waiter>;
  private readonly options: LogReaderOptions;
  private closed = false;
  readonly reads: AsyncReads;

  constructor(options: LogReaderOptions) {
    this.options = options;
    this.thread = new OnDemandThread({
      scriptUrl: options.threadUrl ?? READER_THREAD_URL,
      threadName: READER_THREAD_NAME,
      workerData: () => ({ databasePath: options.databasePath, holdSignal: holdSignalForNewThreads }),
      // Every read starts a thread again: a read that failed says so, and the user's next look retries.
      maxFailuresInARow: Number.POSITIVE_INFINITY,
      stopWhenIdleMs: IDLE_THREAD_STOP_MS,
      onAnswer: (answer, waiter) => {
        if (waiter === undefined) return;
        if (answer.ok) waiter.resolve(answer.value);
        else waiter.reject(new LogReadError(answer.message, answer.errcode, answer.code));
      },
      onUnanswered: (waiter, cause) =>
        waiter.reject(
          new LogReaderUnavailableError(
            cause === 'died'
              ? "The request log's reader thread stopped before answering. Try again: the next read starts a new one."
              : 'The request log was closed before this read was answered.',
          ),
        ),
      onError: (message) => options.onError(new Error(`the request log's reader thread failed: ${message}`)),
      onGaveUp: () => {},
    });
    const ask =
      <Name extends ReadName>(read: Name) =>
      (...args: Parameters<ReaderReads[Name]>): Promise<ReturnType<ReaderReads[Name]>> =>
        this.ask(read, args) as Promise<ReturnType<ReaderReads[Name]>>;
    this.reads = {
      listRequests: ask('listRequests'),
      facets: ask('facets'),
      getRequest: ask('getRequest'),
      replaysOf: ask('replaysOf'),
      spendByDay: ask('spendByDay'),
      totals: ask('totals'),
      modelStats: ask('modelStats'),
      listSessions: ask('listSessions'),
      session: ask('session'),
      turns: ask('turns'),
      turnsThrough: ask('turnsThrough'),
    };
  }

  private ask(read: ReadName, args: unknown[]): Promise<unknown> {
    if (this.closed) return Promise.reject(new LogReaderUnavailableError('The request log is closed.'));
    return new Promise((resolve, reject) => {
      const secrets = this.options.knownSecrets();
      this.thread.ask({ resolve, reject }, (id) => ({ id, read, args, secrets }), []);
    });
  }

  /** Ends the thread with the log; reads still waiting fail. */
  async close(): Promise<void> {
    this.closed = true;
    await this.thread.stop();
  }
}
