import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  FullTextBackfill,
  indexUnindexedSlice,
  unindexedBytes,
  type FullTextBackfillOptions,
} from '../../../proxy/store/write/fullTextBackfill.ts';
import { trigramQuery } from '../../../proxy/store/read/queries.ts';
import { indexEveryBody } from './indexEveryBody.ts';
import { DATABASE_FILE_NAME, MIGRATIONS, openLogDatabase } from '../../../proxy/store/schema.ts';

let dataDir: string;
let db: DatabaseSync;
let backfill: FullTextBackfill | null = null;

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'airlock-fts-'));
  db = openLogDatabase({ dataDir });
});
afterEach(() => {
  backfill?.close();
  backfill = null;
  db.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/**
 * Writes one request with a body as the log does, listing it as unindexed (schema one had no such
 * list); the body's stored size is its text length.
 */
function insertBody(id: string, text: string, options: { listUnindexed: boolean } = { listUnindexed: true }): void {
  db.prepare(
    `INSERT INTO requests (id, started_at_ms, method, client_path, upstream_path, protocol, protocol_mode, state)
     VALUES (?, 0, 'POST', '/v1/chat/completions', '/chat/completions', 'openai', 'native', 'done')`,
  ).run(id);
  db.prepare(
    `INSERT INTO request_bodies (request_id, request_headers, response_headers, request_body, stored_bytes)
     VALUES (?, '{}', '{}', ?, ?)`,
  ).run(id, text, text.length);
  if (options.listUnindexed) {
    db.prepare('INSERT INTO request_bodies_unindexed (body_id) SELECT body_id FROM request_bodies WHERE request_id = ?').run(id);
  }
}

function unindexedIds(): string[] {
  return db
    .prepare('SELECT b.request_id AS id FROM request_bodies_unindexed p JOIN request_bodies b USING (body_id) ORDER BY p.body_id')
    .all()
    .map((record) => String(record.id));
}

/** The bodies the full-text index alone finds for `text` (every trigram of it, anywhere in the body). */
function search(text: string): string[] {
  return db
    .prepare(
      `SELECT b.request_id AS id FROM request_bodies_fts f JOIN request_bodies b ON b.body_id = f.rowid
       WHERE request_bodies_fts MATCH ? ORDER BY b.body_id`,
    )
    .all(trigramQuery(text))
    .map((record) => String(record.id));
}

/** FTS5's own check: throws when the index and the bodies disagree. */
function checkIndexMatchesBodies(): void {
  db.exec("INSERT INTO request_bodies_fts (request_bodies_fts, rank) VALUES ('integrity-check', 1)");
}

function startBackfill(options: Partial<FullTextBackfillOptions>): FullTextBackfill {
  backfill = new FullTextBackfill(db, {
    idleDelayMs: 60_000,
    maxBacklogBytes: Number.MAX_SAFE_INTEGER,
    minPassBytes: 0,
    maxIdleWaitMs: 60_000,
    slice: { maxRows: 100, maxBytes: 1024 },
    onError: (error) => {
      throw error;
    },
    ...options,
  });
  return backfill;
}

describe('indexUnindexedSlice', () => {
  it.each([
    ['all, within both limits', [10, 10, 10], { maxRows: 5, maxBytes: 100 }, 3],
    ['up to the row limit', [10, 10, 10], { maxRows: 2, maxBytes: 100 }, 2],
    ['up to the byte limit', [10, 10, 10], { maxRows: 5, maxBytes: 25 }, 2],
    ['one body larger than the byte limit, whole', [50, 10], { maxRows: 5, maxBytes: 25 }, 1],
    ['nothing when nothing is left', [], { maxRows: 5, maxBytes: 25 }, 0],
  ])('indexes %s, oldest first', (_label, sizes, limits, expectedRows) => {
    for (const [index, size] of sizes.entries()) insertBody(`r${index}`, `body${index} `.padEnd(size, 'x'));
    const result = indexUnindexedSlice(db, limits);
    expect(result).toEqual({ rows: expectedRows, bytes: sizes.slice(0, expectedRows).reduce((sum, size) => sum + size, 0) });
    expect(unindexedIds()).toEqual(sizes.slice(expectedRows).map((_size, index) => `r${index + expectedRows}`));
    expect(search('body0')).toEqual(expectedRows > 0 ? ['r0'] : []);
  });
});

describe('bodies enter the full-text index off the write path', () => {
  it('a written body is listed as unindexed, not yet in the index', () => {
    insertBody('fresh', 'the quick brown fox');
    expect(unindexedIds()).toEqual(['fresh']);
    expect(search('brown fox')).toEqual([]);
  });

  it('slice after slice, every unindexed body enters the index', () => {
    for (let index = 0; index < 30; index += 1) insertBody(`r${index}`, `shared text number ${index}`.padEnd(200, '.'));
    indexEveryBody(db);
    expect(unindexedIds()).toEqual([]);
    expect(search('shared text')).toHaveLength(30);
    checkIndexMatchesBodies();
  });

  it('deleting an indexed and an unindexed body keeps the index equal to the bodies', () => {
    for (const id of ['indexed', 'kept', 'never-indexed']) insertBody(id, `needle in ${id}`);
    indexUnindexedSlice(db, { maxRows: 1, maxBytes: 1024 });
    db.prepare("DELETE FROM request_bodies WHERE request_id IN ('indexed', 'never-indexed')").run();
    expect(unindexedIds()).toEqual(['kept']);
    indexEveryBody(db);
    expect(search('needle')).toEqual(['kept']);
    checkIndexMatchesBodies();
  });

  it('indexes in the background once the log is idle', async () => {
    for (let index = 0; index < 10; index += 1) insertBody(`r${index}`, `background ${index}`);
    startBackfill({ idleDelayMs: 1, slice: { maxRows: 3, maxBytes: 1024 } });
    for (let attempt = 0; attempt < 500 && unindexedIds().length > 0; attempt += 1) await delay(10);
    expect(unindexedIds()).toEqual([]);
    expect(search('background')).toHaveLength(10);
  });

  it('brings the backlog under its limit while busy, without waiting for idle', async () => {
    const filler = startBackfill({ maxBacklogBytes: 250, slice: { maxRows: 1, maxBytes: 100 } });
    for (let index = 0; index < 10; index += 1) {
      insertBody(`r${index}`, `busy ${index}`.padEnd(100, '.'));
      filler.noteActivity();
      filler.noteWritten(100);
    }
    for (let attempt = 0; attempt < 500 && unindexedBytes(db) > 250; attempt += 1) {
      filler.noteActivity();
      await delay(1);
    }
    expect(unindexedBytes(db)).toBeLessThanOrEqual(250);
    expect(unindexedIds().length).toBeGreaterThan(0);
  });
});

describe('a background pass waits for enough bodies (a slice costs about 1 ms whatever its size)', () => {
  const IDLE_MS = 500;
  const MAX_WAIT_MS = 60_000;
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** Runs the backfill's timers for `ms` of fake time, a step at a time. */
  function advance(ms: number): void {
    for (let step = 0; step < 100; step += 1) vi.advanceTimersByTime(ms / 100);
  }

  it('leaves a small backlog unindexed after a short pause and indexes it after a long quiet', () => {
    for (let index = 0; index < 3; index += 1) insertBody(`r${index}`, `small ${index}`.padEnd(100, '.'));
    startBackfill({ idleDelayMs: IDLE_MS, minPassBytes: 1000, maxIdleWaitMs: MAX_WAIT_MS });
    advance(IDLE_MS * 4);
    expect(unindexedIds()).toHaveLength(3);
    advance(MAX_WAIT_MS);
    expect(unindexedIds()).toEqual([]);
    expect(search('small')).toHaveLength(3);
  });

  it('starts a pass at the next pause once enough is written, without the long wait', () => {
    insertBody('r0', 'first'.padEnd(100, '.'));
    const filler = startBackfill({ idleDelayMs: IDLE_MS, minPassBytes: 1000, maxIdleWaitMs: MAX_WAIT_MS });
    advance(IDLE_MS * 2);
    for (let index = 1; index < 12; index += 1) {
      insertBody(`r${index}`, `more ${index}`.padEnd(100, '.'));
      filler.noteActivity();
      filler.noteWritten(100);
    }
    advance(IDLE_MS * 4);
    expect(unindexedIds()).toEqual([]);
  });

  it('a started pass runs until nothing waits, the last slices under the minimum too', () => {
    for (let index = 0; index < 12; index += 1) insertBody(`r${index}`, `pass ${index}`.padEnd(100, '.'));
    startBackfill({ idleDelayMs: IDLE_MS, minPassBytes: 1000, maxIdleWaitMs: MAX_WAIT_MS, slice: { maxRows: 5, maxBytes: 1024 } });
    advance(IDLE_MS * 4);
    expect(unindexedIds()).toEqual([]);
  });
});

function automergeSetting(): unknown {
  return db.prepare("SELECT v FROM request_bodies_fts_config WHERE k = 'automerge'").get()?.v;
}

describe('index segment merging', () => {
  it('merges sixteen segments at a time, so bulk indexing rewrites each byte fewer times', () => {
    expect(automergeSetting()).toBe(16);
  });
});

describe('upgrading a log from an older schema', () => {
  it('rebuilds the full-text index without positions, every earlier body listed for it and found meanwhile', () => {
    db.close();
    rmSync(dataDir, { recursive: true, force: true });
    dataDir = mkdtempSync(join(tmpdir(), 'airlock-fts-'));
    const firstVersion = new DatabaseSync(join(dataDir, DATABASE_FILE_NAME));
    firstVersion.exec(MIGRATIONS[0] ?? '');
    firstVersion.exec('PRAGMA user_version = 1');
    db = firstVersion;
    // Schema one indexed each body as it was written, positions included.
    insertBody('old', 'written under schema one', { listUnindexed: false });
    insertBody('gone', 'also written under schema one', { listUnindexed: false });
    expect(db.prepare(`SELECT rowid FROM request_bodies_fts WHERE request_bodies_fts MATCH '"schema one"'`).all()).toHaveLength(2);
    firstVersion.close();

    db = openLogDatabase({ dataDir });
    expect(automergeSetting()).toBe(16);
    expect(unindexedIds()).toEqual(['old', 'gone']);
    expect(search('written under')).toEqual([]);
    insertBody('new', 'written under the current schema');
    db.prepare("DELETE FROM request_bodies WHERE request_id = 'gone'").run();
    indexEveryBody(db);
    expect(search('written under')).toEqual(['old', 'new']);
    expect(() => db.prepare(`SELECT rowid FROM request_bodies_fts WHERE request_bodies_fts MATCH '"schema one"'`).all()).toThrow(
      /phrase queries are not supported/,
    );
    checkIndexMatchesBodies();
  });
});
