import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { createRequestLog } from '../../../proxy/store/requestLog.ts';
import { DATABASE_FILE_NAME, MIGRATIONS, readPragma, SCHEMA_VERSION } from '../../../proxy/store/schema.ts';
import { tempDirPerTest } from './tempLog.ts';

const dir = tempDirPerTest('airlock-older-logs-');
const ROWS = 200;
const CREDITS_PER_ROW = 0.25;

/**
 * A log as an Airlock of schema `version` left it: `ROWS` requests of two profiles, each with its
 * bodies, listed for the full-text index as its writer listed them from schema 5 (before, a trigger did).
 */
function olderLog(version: number): void {
  const db = new DatabaseSync(join(dir(), DATABASE_FILE_NAME));
  db.exec('PRAGMA auto_vacuum = INCREMENTAL');
  db.exec('PRAGMA journal_mode = WAL');
  for (const [index, migration] of MIGRATIONS.slice(0, version).entries()) {
    db.exec(migration);
    db.exec(`PRAGMA user_version = ${index + 1}`);
  }
  const request = db.prepare(
    `INSERT INTO requests (id, started_at_ms, method, client_path, upstream_path, protocol, protocol_mode, state, cost_credits, profile_id)
     VALUES (?, ?, 'POST', '/v1/chat/completions', '/v1/chat/completions', 'openai', 'native', 'done', ?, ?)`,
  );
  const bodies = db.prepare(
    `INSERT INTO request_bodies (request_id, request_headers, response_headers, request_body, response_body)
     VALUES (?, '{}', '{}', ?, '{"choices":[]}')`,
  );
  for (let index = 0; index < ROWS; index += 1) {
    const id = `alk_older_${index}`;
    request.run(id, Date.now() - index * 1000, CREDITS_PER_ROW, index % 2 === 0 ? 'work' : 'home');
    const { lastInsertRowid } = bodies.run(id, `{"messages":[{"role":"user","content":"question ${index}"}]}`);
    if (version >= 5) db.prepare('INSERT INTO request_bodies_unindexed (body_id) VALUES (?)').run(lastInsertRowid);
  }
  db.close();
}

describe('a log an older Airlock wrote', () => {
  it.each([1, 5, 10, 16])('at schema %i is brought to this schema with every row, its spend and its bodies', async (version) => {
    olderLog(version);
    const log = createRequestLog({ dataDir: dir(), knownSecrets: () => [], minFreeDiskBytes: 0 });
    try {
      expect(log.spendSince({ sinceMs: 0 })).toBeCloseTo(ROWS * CREDITS_PER_ROW, 9);
      expect(log.spendSince({ sinceMs: 0, profileId: 'work' })).toBeCloseTo((ROWS / 2) * CREDITS_PER_ROW, 9);
      expect(log.totals({ fromMs: 0, toMs: Date.now() + 1 }).requests).toBe(ROWS);
      expect(log.getRequest(`alk_older_${ROWS - 1}`)?.bodies?.requestBody).toBe(
        `{"messages":[{"role":"user","content":"question ${ROWS - 1}"}]}`,
      );
      // A body of the old layout is found by search, from the index the upgrade rebuilds.
      expect(log.listRequests({ text: 'question 171' }).rows.map((row) => row.id)).toEqual(['alk_older_171']);
    } finally {
      await log.close();
    }
    const db = new DatabaseSync(join(dir(), DATABASE_FILE_NAME), { readOnly: true });
    expect(Number(readPragma(db, 'user_version'))).toBe(SCHEMA_VERSION);
    db.close();
  });
});
