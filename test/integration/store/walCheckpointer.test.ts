import { statSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { DATABASE_FILE_NAME } from '../../../proxy/store/schema.ts';
import { BACKGROUND_PRIORITY_ENV } from '../../../proxy/store/threadPriority.ts';
import { CHECKPOINT_THREAD_NAME, leaveCheckpointsToThread, startWalCheckpointer } from '../../../proxy/store/write/walCheckpointer.ts';
import { niceOfThreads, policyOfThreads, SCHED_IDLE } from '../../support/procStat.ts';
import { endEvent, startEvent } from '../../support/lifecycleEvents.ts';
import { openTempLog, tempDirPerTest } from './tempLog.ts';

const dir = tempDirPerTest('airlock-wal-');
const SCHED_OTHER = 0;
const threadsNamed = (name: string): number => niceOfThreads(name).length;

/** Runs `start` with AIRLOCK_BACKGROUND_PRIORITY set to `value` (or unset), as a process started that way would. */
function withBackgroundPriority<T>(value: string | undefined, start: () => T): T {
  const before = process.env[BACKGROUND_PRIORITY_ENV];
  if (value === undefined) delete process.env[BACKGROUND_PRIORITY_ENV];
  else process.env[BACKGROUND_PRIORITY_ENV] = value;
  try {
    return start();
  } finally {
    if (before === undefined) delete process.env[BACKGROUND_PRIORITY_ENV];
    else process.env[BACKGROUND_PRIORITY_ENV] = before;
  }
}

/** A writer that never checkpoints itself, as the request log's connection. */
function openWriterWithoutCheckpoints(path: string): DatabaseSync {
  const db = new DatabaseSync(path);
  db.exec('PRAGMA journal_mode = WAL');
  leaveCheckpointsToThread(db);
  db.exec('CREATE TABLE t (text TEXT)');
  return db;
}

/** A writer leaving checkpoints to a checkpoint thread started under `priority`; both closed after `check`. */
async function withCheckpointerAt(
  priority: Parameters<typeof withBackgroundPriority>[0],
  check: (writer: DatabaseSync, path: string) => Promise<void>,
): Promise<void> {
  const path = join(dir(), 'log.db');
  const writer = openWriterWithoutCheckpoints(path);
  const checkpointer = withBackgroundPriority(priority, () =>
    startWalCheckpointer(path, { intervalMs: 5, onError: () => undefined, onStopped: () => undefined }),
  );
  try {
    await check(writer, path);
  } finally {
    await checkpointer.close();
    writer.close();
  }
}

describe('startWalCheckpointer', () => {
  it('copies what the writer committed into the database file from its own thread', async () => {
    const path = join(dir(), 'log.db');
    const writer = openWriterWithoutCheckpoints(path);
    const sizeBeforeBytes = statSync(path).size;
    const insert = writer.prepare('INSERT INTO t VALUES (?)');
    for (let index = 0; index < 200; index += 1) insert.run('x'.repeat(1_000));
    expect(statSync(path).size).toBe(sizeBeforeBytes);

    const errors: unknown[] = [];
    const checkpointer = startWalCheckpointer(path, {
      intervalMs: 5,
      onError: (error) => errors.push(error),
      onStopped: () => errors.push('stopped'),
    });
    await expect.poll(() => statSync(path).size).toBeGreaterThan(sizeBeforeBytes + 200 * 1_000);
    await checkpointer.close();
    writer.close();
    expect(errors).toEqual([]);
  });

  it(`runs at nice 19 and the idle policy with ${BACKGROUND_PRIORITY_ENV}=idle`, async () => {
    await withCheckpointerAt('idle', async () => {
      await expect.poll(() => policyOfThreads(CHECKPOINT_THREAD_NAME)).toEqual([SCHED_IDLE]);
      expect(niceOfThreads(CHECKPOINT_THREAD_NAME)).toEqual([19]);
    });
  });

  it(`runs at nice 19 alone with ${BACKGROUND_PRIORITY_ENV}=nice`, async () => {
    await withCheckpointerAt('nice', async () => {
      // That `nice` leaves the policy alone is lowerThreadPriority's test: chrt runs after this
      // nice value shows, so the policy read here could not tell.
      await expect.poll(() => niceOfThreads(CHECKPOINT_THREAD_NAME)).toEqual([19]);
    });
  });

  it('stays at normal priority by default', async () => {
    await withCheckpointerAt(undefined, async (writer, path) => {
      // Checkpoints happen, so the thread runs; a lowering would have been started as it came online.
      const sizeBeforeBytes = statSync(path).size;
      writer.prepare('INSERT INTO t VALUES (?)').run('x'.repeat(100_000));
      await expect.poll(() => statSync(path).size).toBeGreaterThan(sizeBeforeBytes);
      expect(niceOfThreads(CHECKPOINT_THREAD_NAME)).toEqual([0]);
      expect(policyOfThreads(CHECKPOINT_THREAD_NAME)).toEqual([SCHED_OTHER]);
    });
  });

  it('ends its thread once the log is quiet, without reporting it as stopped, and a write wakes it again', async () => {
    const path = join(dir(), 'log.db');
    const writer = openWriterWithoutCheckpoints(path);
    const insert = writer.prepare('INSERT INTO t VALUES (?)');
    const stops: unknown[] = [];
    // What the log thread's connection is told: checkpoint on your own whenever no thread runs.
    const running: boolean[] = [];
    const checkpointer = startWalCheckpointer(path, {
      intervalMs: 5,
      stopAfterQuietChecks: 3,
      startNow: false,
      onError: (error) => stops.push(error),
      onStopped: () => stops.push('stopped'),
      onRunning: (isRunning) => running.push(isRunning),
    });
    try {
      insert.run('x'.repeat(100_000));
      const sizeBeforeBytes = statSync(path).size;
      expect(threadsNamed(CHECKPOINT_THREAD_NAME)).toBe(0);
      checkpointer.wake();
      await expect.poll(() => statSync(path).size).toBeGreaterThan(sizeBeforeBytes);
      await expect.poll(() => threadsNamed(CHECKPOINT_THREAD_NAME)).toBe(0);
      await expect.poll(() => running).toEqual([true, false]);

      const sizeAfterFirstBytes = statSync(path).size;
      insert.run('y'.repeat(100_000));
      checkpointer.wake();
      await expect.poll(() => statSync(path).size).toBeGreaterThan(sizeAfterFirstBytes);
      // The woken thread may already have ended again after its three quiet checks.
      expect(running.slice(0, 3)).toEqual([true, false, true]);
      expect(stops).toEqual([]);
    } finally {
      await checkpointer.close();
      writer.close();
    }
  });

  it('asks for a trim when its thread ends because the log was quiet, not when it is closed', async () => {
    const path = join(dir(), 'log.db');
    const writer = openWriterWithoutCheckpoints(path);
    let trims = 0;
    const checkpointer = startWalCheckpointer(path, {
      intervalMs: 5,
      stopAfterQuietChecks: 3,
      startNow: false,
      onError: () => undefined,
      onStopped: () => undefined,
      trimAfterQuietStop: () => {
        trims += 1;
      },
    });
    try {
      writer.prepare('INSERT INTO t VALUES (?)').run('x'.repeat(100_000));
      checkpointer.wake();
      await expect.poll(() => trims).toBe(1);
      checkpointer.wake();
    } finally {
      await checkpointer.close();
      writer.close();
    }
    expect(trims).toBe(1);
  });

  it('reports a thread that could not run, so the writer can checkpoint again', async () => {
    const errors: unknown[] = [];
    let stopped = false;
    startWalCheckpointer(join(dir(), 'missing', 'log.db'), {
      intervalMs: 5,
      onError: (error) => errors.push(error),
      onStopped: () => (stopped = true),
    });
    await expect.poll(() => stopped).toBe(true);
    expect(errors).toHaveLength(1);
  });
});

describe('the request log', () => {
  it('starts no checkpoint thread until a request is logged', async () => {
    const temp = openTempLog();
    try {
      await temp.log.flush();
      expect(threadsNamed(CHECKPOINT_THREAD_NAME)).toBe(0);
      temp.events.emit(startEvent('r1'));
      await expect.poll(() => threadsNamed(CHECKPOINT_THREAD_NAME)).toBe(1);
    } finally {
      await temp.cleanup();
    }
  });

  it('gets its writes into the database file while open, by the checkpoint thread', async () => {
    const temp = openTempLog();
    try {
      const path = join(temp.dataDir, DATABASE_FILE_NAME);
      const sizeBeforeBytes = statSync(path).size;
      for (let index = 0; index < 200; index += 1) {
        temp.events.emit(startEvent(`r${index}`));
        temp.events.emit(endEvent(`r${index}`));
      }
      await temp.log.flush();
      await expect.poll(() => statSync(path).size).toBeGreaterThan(sizeBeforeBytes);
    } finally {
      await temp.cleanup();
    }
  });
});
