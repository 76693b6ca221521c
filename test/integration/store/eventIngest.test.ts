import type { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EventIngest } from '../../../proxy/store/write/eventIngest.ts';
import { RequestLogQueries } from '../../../proxy/store/read/queries.ts';
import { openLogDatabase } from '../../../proxy/store/schema.ts';
import { endEvent, startEvent } from '../../support/lifecycleEvents.ts';
import { tempDirPerTest } from './tempLog.ts';

const dataDir = tempDirPerTest('airlock-ingest-');
let db: DatabaseSync;
let errors: unknown[];
const ingests: EventIngest[] = [];

beforeEach(() => {
  db = openLogDatabase({ dataDir: dataDir() });
  errors = [];
});
afterEach(() => {
  for (const ingest of ingests.splice(0)) ingest.close();
  db.close();
});

/** A fresh ingest over the same database, as a log thread started after another one died. */
function newThread(inFlightRowDelayMs?: number): EventIngest {
  const ingest = new EventIngest(db, {
    bodyCapBytes: 1024,
    onError: (error) => errors.push(error),
    onBodiesState: () => undefined,
    ...(inFlightRowDelayMs === undefined ? {} : { inFlightRowDelayMs }),
  });
  ingests.push(ingest);
  return ingest;
}

describe('EventIngest after a log thread was replaced', () => {
  it('completes the in-flight row an earlier thread wrote, keeping what its start said', () => {
    newThread().ingest([startEvent('r1', { clientName: 'codex', requestedModel: 'gpt-4o' })], [], true);
    newThread().ingest([endEvent('r1', { costCredits: 2.5 })], [], true);

    const detail = new RequestLogQueries(db).getRequest('r1');
    expect(detail?.row).toMatchObject({ state: 'done', status: 200, clientName: 'codex', requestedModel: 'gpt-4o', costCredits: 2.5 });
    expect(detail?.bodies).not.toBeNull();
    expect(errors).toEqual([]);
  });

  it('ignores the end of a request it has no row for, and never reopens a finished row', () => {
    const first = newThread();
    first.ingest([startEvent('done'), endEvent('done', { costCredits: 1 })], [], true);
    newThread().ingest([endEvent('never-started'), endEvent('done', { costCredits: 9 })], [], true);

    const queries = new RequestLogQueries(db);
    expect(queries.getRequest('never-started')).toBeNull();
    expect(queries.getRequest('done')?.row.costCredits).toBe(1);
  });
});

/** Counts every insert into and update of `requests` (an upsert's update included). */
function countRowWrites(): () => number {
  db.exec(`
    CREATE TABLE row_writes (n INTEGER NOT NULL);
    INSERT INTO row_writes VALUES (0);
    CREATE TRIGGER count_row_inserts AFTER INSERT ON requests BEGIN UPDATE row_writes SET n = n + 1; END;
    CREATE TRIGGER count_row_updates AFTER UPDATE ON requests BEGIN UPDATE row_writes SET n = n + 1; END;
  `);
  return () => Number(db.prepare('SELECT n FROM row_writes').get()?.n);
}

describe('EventIngest rows of requests in flight', () => {
  it('writes a request that ends within the in-flight delay once, at its end', () => {
    const rowWrites = countRowWrites();
    const ingest = newThread(60_000);
    ingest.ingest([startEvent('quick', { startedAtMs: Date.now() })], [], true);
    expect(new RequestLogQueries(db).getRequest('quick')).toBeNull();

    ingest.ingest([endEvent('quick')], [], true);
    expect(new RequestLogQueries(db).getRequest('quick')?.row.state).toBe('done');
    expect(rowWrites()).toBe(1);
  });

  it('writes the in-flight row at once for a request already running longer than the delay', () => {
    const rowWrites = countRowWrites();
    const ingest = newThread(60_000);
    ingest.ingest([startEvent('long', { startedAtMs: Date.now() - 61_000 })], [], true);
    expect(new RequestLogQueries(db).getRequest('long')?.row.state).toBe('in_flight');

    ingest.ingest([endEvent('long')], [], true);
    expect(new RequestLogQueries(db).getRequest('long')?.row.state).toBe('done');
    expect(rowWrites()).toBe(2);
  });

  it('writes the in-flight row of a stream at once: streams are what a crash interrupts', () => {
    newThread(60_000).ingest([startEvent('stream', { startedAtMs: Date.now(), stream: true })], [], true);
    expect(new RequestLogQueries(db).getRequest('stream')?.row.state).toBe('in_flight');
  });

  it('writes the in-flight row on its own once the request has run for the delay', async () => {
    const ingest = newThread(30);
    ingest.ingest([startEvent('slow', { startedAtMs: Date.now() })], ['sk-never-in-this-row-0123'], true);
    expect(new RequestLogQueries(db).getRequest('slow')).toBeNull();
    await expect.poll(() => new RequestLogQueries(db).getRequest('slow')?.row.state).toBe('in_flight');
    expect(errors).toEqual([]);
  });

  it('writes a held row when its request reaches the delay, not a whole delay after it was held', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
    try {
      const ingest = newThread(500);
      ingest.ingest([startEvent('started-earlier', { startedAtMs: Date.now() - 400 })], [], true);
      vi.advanceTimersByTime(99);
      expect(new RequestLogQueries(db).getRequest('started-earlier')).toBeNull();
      vi.advanceTimersByTime(1);
      expect(new RequestLogQueries(db).getRequest('started-earlier')?.row.state).toBe('in_flight');
    } finally {
      vi.useRealTimers();
    }
  });

  it('writes a held row when its request has run for the delay, though the clock was set back meanwhile', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
    try {
      const ingest = newThread(500);
      ingest.ingest([startEvent('running', { startedAtMs: Date.now() })], [], true);
      // NTP or the user sets the clock back an hour while the request runs.
      vi.setSystemTime(Date.now() - 3_600_000);
      vi.advanceTimersByTime(500);
      expect(new RequestLogQueries(db).getRequest('running')?.row.state).toBe('in_flight');
    } finally {
      vi.useRealTimers();
    }
  });

  it('writes every held row when asked (a flush or close), whatever its age', () => {
    const ingest = newThread(60_000);
    ingest.ingest(
      [startEvent('held', { startedAtMs: Date.now() }), startEvent('ended', { startedAtMs: Date.now() }), endEvent('ended')],
      [],
      true,
    );
    expect(new RequestLogQueries(db).getRequest('held')).toBeNull();

    ingest.writeHeldRows();
    expect(new RequestLogQueries(db).getRequest('held')?.row.state).toBe('in_flight');
    expect(new RequestLogQueries(db).getRequest('ended')?.row.state).toBe('done');
  });
});
