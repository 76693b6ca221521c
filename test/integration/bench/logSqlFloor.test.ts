import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { DATABASE_FILE_NAME, openLogDatabase } from '../../../proxy/store/schema.ts';
import { LogWriter } from '../../../proxy/store/write/writer.ts';
import { measureLogSqlFloor } from '../../bench/logSqlFloor.ts';
import { spendRow, writeOrThrow } from '../store/damagedLogFixture.ts';
import { tempDirPerTest } from '../store/tempLog.ts';

const dataDir = tempDirPerTest('airlock-sql-floor-');

/** A log as Airlock writes it: `count` ended requests, each with a request body stored as pieces and a response. */
function writeLog(dir: string, count: number): string {
  const db = openLogDatabase({ dataDir: dir });
  const writer = new LogWriter(db);
  for (let index = 0; index < count; index += 1) {
    const row = spendRow(`req-${index}`, 0.1, { startedAtMs: 1_000 + index });
    // Long enough to be stored as pieces, the system prompt's shared by every request.
    const requestBody = JSON.stringify({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'You are a careful coding agent. '.repeat(40) },
        { role: 'user', content: `Say hello number ${index}. `.repeat(60) },
      ],
    });
    writeOrThrow(writer, {
      rows: [row],
      bodies: [
        {
          requestId: row.id,
          record: {
            requestHeaders: { 'content-type': 'application/json' },
            responseHeaders: {},
            requestBody,
            requestTruncated: false,
            responseBody: `{"reply":"hello ${index}"}`,
            responseTruncated: false,
            streamText: null,
            rawEvents: null,
            rawEventOffsetsMs: null,
          },
        },
      ],
    });
  }
  db.close();
  return join(dir, DATABASE_FILE_NAME);
}

describe("the least a SQLite log of a run's rows costs (logSqlFloor.ts)", () => {
  it('writes every row, body and piece again into a fresh database, in commits of the given size, and indexes every text', () => {
    const source = writeLog(join(dataDir(), 'source'), 7);
    const copies: string[] = [];
    const floor = measureLogSqlFloor(source, {
      rowsPerCommit: 3,
      rowsPerCheckpoint: 4,
      rowsPerIndexPass: 5,
      replays: 2,
      workDir: join(dataDir(), 'replays'),
      // Each replay's database, read before it is removed.
      onReplayed: (databasePath) => {
        const copy = new DatabaseSync(databasePath);
        const count = (sql: string): number => Number(copy.prepare(sql).get()?.count);
        // FTS5's check with a rank of 1 compares the index with its content table: a text left out fails it.
        const indexHoldsAll = (index: string): string => {
          try {
            copy.exec(`INSERT INTO ${index} (${index}, rank) VALUES ('integrity-check', 1)`);
            return 'indexed';
          } catch {
            return 'not indexed';
          }
        };
        copies.push(
          [
            count('SELECT COUNT(*) AS count FROM requests'),
            count('SELECT COUNT(*) AS count FROM request_bodies'),
            count('SELECT COUNT(*) AS count FROM body_chunks'),
            indexHoldsAll('request_bodies_fts'),
            indexHoldsAll('body_chunks_fts'),
          ].join(' '),
        );
        copy.close();
      },
    });
    const original = new DatabaseSync(source, { readOnly: true });
    const chunks = Number(original.prepare('SELECT COUNT(*) AS count FROM body_chunks').get()?.count);
    original.close();
    expect(chunks).toBeGreaterThan(0);
    expect(copies).toEqual([`7 7 ${chunks} indexed indexed`, `7 7 ${chunks} indexed indexed`]);
    expect(floor.rows).toBe(7);
    expect(floor.commits).toBe(3);
    expect(floor.usPerRow.total).toBeGreaterThan(0);
    expect(floor.usPerRow.total).toBeCloseTo(
      floor.usPerRow.requestRows + floor.usPerRow.bodies + floor.usPerRow.commit + floor.usPerRow.fullText + floor.usPerRow.checkpoint,
      6,
    );
  });
});
