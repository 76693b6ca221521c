import { startOfLocalMonthMs } from '../../../proxy/core/localPeriods.ts';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import type { RequestBodiesRecord, RequestLogRow } from '../../../proxy/contracts/log.ts';
import { recoverDamagedLog } from '../../../proxy/store/logRecovery.ts';
import { RequestLogQueries } from '../../../proxy/store/read/queries.ts';
import { DATABASE_FILE_NAME, MIGRATIONS, openLogDatabase, usedDatabaseBytes } from '../../../proxy/store/schema.ts';
import { runRetention } from '../../../proxy/store/write/retention.ts';
import { LogWriter } from '../../../proxy/store/write/writer.ts';
import { overwrite, pageHolding, spendRow, writeOrThrow } from './damagedLogFixture.ts';
import { indexEveryBody } from './indexEveryBody.ts';
import { tempDirPerTest } from './tempLog.ts';

const DAY_MS = 86_400_000;
const NOW_MS = Date.UTC(2026, 10, 26, 12);
const PAGE_BYTES = 4096;
const dataDir = tempDirPerTest('airlock-chunked-');

const prose = (label: string, sentences = 40): string => `${label} `.concat('the agent read the file and explained it. '.repeat(sentences));

/** The request body of each turn of one conversation: every turn repeats the history before it. */
function conversation(turns: number, edit?: { atTurn: number; text: string }, sentences = 40): string[] {
  const messages: Array<Record<string, unknown>> = [{ role: 'system', content: prose('SYSTEM-PROMPT', sentences) }];
  const bodies: string[] = [];
  for (let turn = 1; turn <= turns; turn += 1) {
    messages.push({ role: 'user', content: prose(`QUESTION-${turn}`, sentences) });
    if (edit?.atTurn === turn) messages[1] = { role: 'user', content: prose(edit.text, sentences) };
    bodies.push(JSON.stringify({ model: 'gpt-4o-mini', messages, stream: false }));
    messages.push({ role: 'assistant', content: prose(`ANSWER-${turn}`, sentences) });
  }
  return bodies;
}

function bodyRecord(requestBody: string | null, responseBody = '{"reply":"ok"}'): RequestBodiesRecord {
  return {
    requestHeaders: {},
    responseHeaders: {},
    requestBody,
    requestTruncated: false,
    responseBody,
    responseTruncated: false,
    streamText: null,
    rawEvents: null,
    rawEventOffsetsMs: null,
  };
}

function write(writer: LogWriter, rows: RequestLogRow[], requestBodies: string[]): void {
  writeOrThrow(writer, {
    rows,
    bodies: rows.map((row, index) => ({ requestId: row.id, record: bodyRecord(requestBodies[index] ?? null, `{"reply":"${row.id}"}`) })),
  });
}

/** One row per turn, a minute apart, starting `ageDays` before NOW_MS. */
function turnRows(prefix: string, count: number, ageDays: number): RequestLogRow[] {
  return Array.from({ length: count }, (_, index) =>
    spendRow(`${prefix}-${index + 1}`, 0.1, { startedAtMs: NOW_MS - ageDays * DAY_MS + index * 60_000 }),
  );
}

/** A fresh log of this test's directory, read and written as the app does (one writer kept across batches). */
function openLog(): { db: DatabaseSync; queries: RequestLogQueries; writer: LogWriter } {
  const db = openLogDatabase({ dataDir: dataDir() });
  return { db, queries: new RequestLogQueries(db), writer: new LogWriter(db) };
}

const count = (db: DatabaseSync, sql: string): number => Number(Object.values(db.prepare(sql).get() ?? {})[0]);
const searched = (queries: RequestLogQueries, text: string): string[] =>
  queries
    .listRequests({ text, limit: 500 })
    .rows.map((row) => row.id)
    .sort();

describe('request bodies stored as pieces', () => {
  it('are found in every request holding the text, from the pieces waiting for the index and from the index', () => {
    const db = openLogDatabase({ dataDir: dataDir() });
    const queries = new RequestLogQueries(db);
    const rows = turnRows('turn', 5, 0);
    write(new LogWriter(db), rows, conversation(5));
    const all = rows.map((row) => row.id).sort();
    const expectations = (): void => {
      expect(searched(queries, 'QUESTION-1 the agent')).toEqual(all);
      expect(searched(queries, 'ANSWER-3 the')).toEqual(['turn-4', 'turn-5']);
      // Under three characters no index is used: a scan of the pieces.
      expect(searched(queries, '-5')).toEqual(['turn-5']);
      expect(searched(queries, 'no such text anywhere')).toEqual([]);
    };
    expect(count(db, 'SELECT COUNT(*) FROM body_chunks_unindexed')).toBeGreaterThan(0);
    expectations();
    // A small body is not worth its pieces' rows: it stays whole, as before.
    write(new LogWriter(db), turnRows('small', 1, 0), ['{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}']);
    expect(count(db, "SELECT COUNT(*) FROM request_bodies WHERE request_body LIKE '%content%'")).toBe(1);
    expect(queries.getRequest('small-1')?.bodies?.requestBody).toBe('{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}');
    indexEveryBody(db);
    expect(count(db, 'SELECT COUNT(*) FROM body_chunks_unindexed')).toBe(0);
    expectations();
    // A piece gone from under its body (never by the log's own deletes) is said, not shown as a shorter body.
    db.exec('DELETE FROM body_chunks WHERE chunk_id = (SELECT MAX(chunk_id) FROM body_chunks)');
    expect(() => queries.getRequest('turn-5')).toThrow(/damaged/);
    db.close();
  });

  it('outlive the requests retention deletes while a later request holds them, and go with the last', () => {
    const { db, queries, writer } = openLog();
    // Turns 1-3 are eight days old, 4-6 today; turn 4 rewrites the first question.
    const bodies = conversation(6, { atTurn: 4, text: 'REWRITTEN' });
    const rows = [...turnRows('old', 3, 8), ...turnRows('new', 3, 0)];
    write(writer, rows, bodies);
    indexEveryBody(db);

    expect(
      runRetention(db, { maxAgeDays: 30, maxTotalBytes: Number.MAX_SAFE_INTEGER, bodyMaxAgeDays: 7 }, NOW_MS, startOfLocalMonthMs(NOW_MS)),
    ).toMatchObject({
      bodiesDeleted: 3,
      rowsDeleted: 0,
    });
    for (const [index, row] of rows.entries()) {
      expect(queries.getRequest(row.id)?.bodies?.requestBody ?? null).toBe(index < 3 ? null : bodies[index]);
    }
    expect(searched(queries, 'QUESTION-2 the agent')).toEqual(['new-1', 'new-2', 'new-3']);
    // The first question as first asked was held by turns 1-3 only: it went with them, from the index too.
    expect(searched(queries, 'QUESTION-1 the agent')).toEqual([]);
    expect(count(db, "SELECT COUNT(*) FROM body_chunks WHERE text LIKE '%QUESTION-1 %'")).toBe(0);
    db.exec("INSERT INTO body_chunks_fts (body_chunks_fts) VALUES ('integrity-check')");

    expect(
      runRetention(db, { maxAgeDays: 30, maxTotalBytes: Number.MAX_SAFE_INTEGER, bodyMaxAgeDays: -1 }, NOW_MS, startOfLocalMonthMs(NOW_MS))
        .bodiesDeleted,
    ).toBe(3);
    for (const table of ['body_chunks', 'request_body_chunks', 'request_body_chunk_lists', 'body_chunks_unindexed'])
      expect({ table, rows: count(db, `SELECT COUNT(*) FROM ${table}`) }).toEqual({ table, rows: 0 });
    db.exec("INSERT INTO body_chunks_fts (body_chunks_fts) VALUES ('integrity-check')");
    db.close();
  });

  it('are stored again by a later turn once retention deleted them, when the writer had them in hand', () => {
    const { db, queries, writer } = openLog();
    const bodies = conversation(4);
    const rows = [...turnRows('old', 3, 8), ...turnRows('new', 1, 0)];
    // One turn a batch, as at an agent's pace: the writer keeps each turn's pieces for the next.
    for (const index of [0, 1, 2]) write(writer, [rows[index] as RequestLogRow], [bodies[index] ?? '']);
    expect(
      runRetention(db, { maxAgeDays: 30, maxTotalBytes: Number.MAX_SAFE_INTEGER, bodyMaxAgeDays: 7 }, NOW_MS, startOfLocalMonthMs(NOW_MS))
        .bodiesDeleted,
    ).toBe(3);
    expect(count(db, 'SELECT COUNT(*) FROM body_chunks')).toBe(0);

    write(writer, [rows[3] as RequestLogRow], [bodies[3] ?? '']);
    expect(queries.getRequest('new-1')?.bodies?.requestBody).toBe(bodies[3]);
    db.close();
  });

  it('keep no piece of a batch that was rolled back for the batches after it', () => {
    const { db, queries, writer } = openLog();
    const bodies = conversation(3);
    const rows = turnRows('turn', 3, 0);
    write(writer, [rows[0] as RequestLogRow], [bodies[0] ?? '']);
    // Turn 2's new pieces are stored, then a body of no logged request fails the batch.
    const failed = writer.write({
      rows: [rows[1] as RequestLogRow],
      bodies: [
        { requestId: 'turn-2', record: bodyRecord(bodies[1] ?? '') },
        { requestId: 'not-logged', record: bodyRecord('{}') },
      ],
    });
    expect(failed.outcome).toBe('failed');
    // Turn 3 repeats turn 2's pieces; their rolled-back ids now belong to turn 3's own new pieces.
    write(writer, [rows[1] as RequestLogRow, rows[2] as RequestLogRow], [bodies[1] ?? '', bodies[2] ?? '']);
    expect(queries.getRequest('turn-2')?.bodies?.requestBody).toBe(bodies[1]);
    expect(queries.getRequest('turn-3')?.bodies?.requestBody).toBe(bodies[2]);
    db.close();
  });

  it('free space under the size limit once no later request holds them: the oldest requests go first', () => {
    const db = openLogDatabase({ dataDir: dataDir() });
    const queries = new RequestLogQueries(db);
    const rows = [...turnRows('a', 8, 2), ...turnRows('b', 8, 1)];
    // About 17 KB a message, so the text, not the schema's pages, is what the size limit weighs;
    // the two sessions share no piece.
    const sent = [
      ...conversation(8, undefined, 400),
      ...conversation(8, undefined, 400).map((body) => body.replaceAll('the agent', 'one agent')),
    ];
    write(new LogWriter(db), rows, sent);
    indexEveryBody(db);
    const usedBytes = usedDatabaseBytes(db);

    const result = runRetention(
      db,
      { maxAgeDays: 30, maxTotalBytes: usedBytes - 150_000, bodyMaxAgeDays: 30 },
      NOW_MS,
      startOfLocalMonthMs(NOW_MS),
    );
    expect(result).toMatchObject({ rowsDeleted: 0 });
    expect(result.usedBytes).toBeLessThanOrEqual(usedBytes - 150_000);
    const kept = rows.filter((row) => (queries.getRequest(row.id)?.bodies ?? null) !== null);
    // Session a's pieces went only with its last turn, so all of it had to go; what went, went
    // oldest first; what stayed reads back whole.
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThanOrEqual(8);
    expect(count(db, "SELECT COUNT(*) FROM body_chunks WHERE text LIKE '%the agent%'")).toBe(0);
    expect(kept.map((row) => row.id)).toEqual(rows.slice(rows.length - kept.length).map((row) => row.id));
    for (const row of kept) expect(queries.getRequest(row.id)?.bodies?.requestBody).toBe(sent[rows.indexOf(row)]);
    db.close();
  });

  it('sit beside bodies a log of schema 8 stored whole, which read and search as before', () => {
    const file = join(dataDir(), DATABASE_FILE_NAME);
    const old = new DatabaseSync(file);
    for (const migration of MIGRATIONS.slice(0, 8)) old.exec(migration);
    old.exec('PRAGMA user_version = 8');
    const oldBody = conversation(2)[1] ?? '';
    old.exec(`INSERT INTO requests (id, started_at_ms, method, client_path, upstream_path, protocol, protocol_mode, state)
              VALUES ('before', ${NOW_MS}, 'POST', '/v1/chat/completions', 'chat/completions', 'openai', 'native', 'done')`);
    old
      .prepare(
        `INSERT INTO request_bodies (request_id, request_headers, response_headers, request_body, stored_bytes) VALUES (?, '{}', '{}', ?, ?)`,
      )
      .run('before', oldBody, oldBody.length);
    old.exec("INSERT INTO request_bodies_unindexed (body_id) SELECT body_id FROM request_bodies WHERE request_id = 'before'");
    old.close();

    const db = openLogDatabase({ dataDir: dataDir() });
    const queries = new RequestLogQueries(db);
    write(new LogWriter(db), turnRows('after', 3, 0), conversation(3));
    expect(queries.getRequest('before')?.bodies?.requestBody).toBe(oldBody);
    expect(queries.getRequest('after-3')?.bodies?.requestBody).toBe(conversation(3)[2]);
    expect(searched(queries, 'QUESTION-2 the agent')).toEqual(['after-2', 'after-3', 'before']);
    indexEveryBody(db);
    expect(searched(queries, 'QUESTION-2 the agent')).toEqual(['after-2', 'after-3', 'before']);
    // Deleting the old row touches no piece: it held none.
    db.exec("DELETE FROM requests WHERE id = 'before'");
    expect(queries.getRequest('after-2')?.bodies?.requestBody).toBe(conversation(3)[1]);
    db.close();
  });

  it('in a damaged log: the rows are read back into a fresh log, which stores pieces again', () => {
    const seeded = openLogDatabase({ dataDir: dataDir() });
    const rows = turnRows('lost', 4, 0);
    write(new LogWriter(seeded), rows, conversation(4));
    seeded.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    seeded.close();
    const file = join(dataDir(), DATABASE_FILE_NAME);
    overwrite(file, pageHolding(file, 'ANSWER-2', PAGE_BYTES), Buffer.alloc(PAGE_BYTES, 0xab));

    const report = recoverDamagedLog(dataDir(), NOW_MS);
    expect(report?.recoveredRequests).toBe(4);
    const db = openLogDatabase({ dataDir: dataDir() });
    const queries = new RequestLogQueries(db);
    // Bodies stay in the moved file; the rows and their spend are back.
    expect(rows.map((row) => queries.getRequest(row.id)?.row.costCredits)).toEqual([0.1, 0.1, 0.1, 0.1]);
    expect(queries.getRequest('lost-1')?.bodies).toBeNull();
    write(new LogWriter(db), turnRows('next', 2, 0), conversation(2));
    expect(queries.getRequest('next-2')?.bodies?.requestBody).toBe(conversation(2)[1]);
    expect(count(db, 'SELECT COUNT(*) FROM request_body_chunk_lists')).toBe(2);
    db.close();
  });
});
