import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { checkLogFiles } from '../../../proxy/store/logCheck.ts';
import { createRequestLog, type RequestLog } from '../../../proxy/store/requestLog.ts';
import { DATABASE_FILE_NAME } from '../../../proxy/store/schema.ts';
import { indexEveryBody } from './indexEveryBody.ts';
import { openTempLog, type TempLog } from './tempLog.ts';

const NODE_BINARY = fileURLToPath(new URL('../../../node_modules/.bin/node', import.meta.url));
const FIXTURE = fileURLToPath(new URL('./fixtures/writeUntilKilled.ts', import.meta.url));
const IN_FLIGHT_COUNT = 5;
const READY_TIMEOUT_MS = 20_000;

/** Runs the fixture until it reports "ready", then kills it with SIGKILL. */
async function runAndKill(dataDir: string): Promise<void> {
  const child = spawn(NODE_BINARY, [FIXTURE, dataDir, String(IN_FLIGHT_COUNT)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = once(child, 'exit');
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`fixture not ready: ${stderr}`)), READY_TIMEOUT_MS);
      child.stdout.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('ready')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.on('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`fixture exited early (${code}): ${stderr}`));
      });
    });
  } finally {
    child.kill('SIGKILL');
    await exited;
  }
}

let temp: TempLog;
let reopened: RequestLog | null = null;
afterEach(async () => {
  await reopened?.close();
  reopened = null;
  await temp.cleanup();
});

describe('crash safety', () => {
  it('after kill -9, the next start marks rows in flight interrupted and the database is intact', async () => {
    temp = openTempLog();
    await temp.log.close();
    await runAndKill(temp.dataDir);
    // A kill is no damage: the start's checks (quick_check included, as no clean close was recorded) pass.
    expect(checkLogFiles(temp.dataDir, DATABASE_FILE_NAME)).toMatchObject({ sound: true, quickCheckMs: expect.any(Number) });

    reopened = createRequestLog({ dataDir: temp.dataDir, knownSecrets: () => [], minFreeDiskBytes: 0 });
    for (let index = 0; index < IN_FLIGHT_COUNT; index += 1) {
      expect(reopened.getRequest(`in-flight-${index}`)?.row.state).toBe('interrupted');
    }
    expect(reopened.getRequest('finished')?.row.state).toBe('done');
    expect(reopened.listRequests({ limit: 500 }).rows.filter((row) => row.state === 'in_flight')).toEqual([]);
    // The killed process left bodies waiting for the full-text index: a search finds them all the same.
    expect(reopened.listRequests({ text: 'hello', limit: 500 }).rows.map((row) => row.id)).toContain('finished');
    await reopened.close();
    reopened = null;

    const db = new DatabaseSync(join(temp.dataDir, DATABASE_FILE_NAME));
    try {
      expect(db.prepare('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' });
      indexEveryBody(db);
      // FTS5's own check compares the index with its content table and throws on a mismatch.
      expect(() => db.exec("INSERT INTO request_bodies_fts (request_bodies_fts, rank) VALUES ('integrity-check', 1)")).not.toThrow();
    } finally {
      db.close();
    }
  });
});
