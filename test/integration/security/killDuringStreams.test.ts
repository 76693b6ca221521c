import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateToken } from '../../../proxy/http/clientTokens.ts';
import { createRequestLog } from '../../../proxy/store/requestLog.ts';
import { DATABASE_FILE_NAME } from '../../../proxy/store/schema.ts';
import { type GatewaySimulator, startGatewaySimulator } from '../../simulator/index.ts';
import { chatBody, JSON_HEADERS } from '../../support/http.ts';

const fixture = fileURLToPath(new URL('./fixtures/airlockChild.ts', import.meta.url));
const STREAMS = 3;
/** A bound on waiting for the child's start, never a pause: on a loaded machine it comes late. */
const CHILD_START_LIMIT_MS = 30_000;

let simulator: GatewaySimulator;
let dataDir: string;

beforeAll(async () => {
  // A chunk a minute: the streams stay open until the kill, however long the log takes to write their rows.
  simulator = await startGatewaySimulator({ streamChunkIntervalMs: 60_000 });
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-kill-'));
});
afterAll(async () => {
  await simulator.close();
  rmSync(dataDir, { recursive: true, force: true });
});

function startChild(token: string): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [fixture, dataDir, simulator.baseUrl, token], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the Airlock child did not start')), CHILD_START_LIMIT_MS);
    child.stdout.on('data', (chunk: Buffer) => {
      const port = /port (\d+)/.exec(chunk.toString())?.[1];
      if (port) {
        clearTimeout(timer);
        resolve({ child, port: Number(port) });
      }
    });
    child.once('exit', (code) => reject(new Error(`the Airlock child exited with ${code}`)));
  });
}

/** Resolves once the stream's first bytes arrived: the request is in flight. */
function openStream(port: number, token: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/v1/chat/completions',
        method: 'POST',
        headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
      },
      (res) => {
        res.once('data', () => resolve());
        res.on('error', () => undefined);
      },
    );
    req.on('error', (error) => reject(error));
    req.end(chatBody({ stream: true }));
  });
}

/** Rows the running child's log has written as in flight, read through a connection of our own. */
function inFlightRowsWritten(): number {
  const databasePath = path.join(dataDir, DATABASE_FILE_NAME);
  if (!existsSync(databasePath)) return 0;
  const db = new DatabaseSync(databasePath, { readOnly: true });
  try {
    return (db.prepare("SELECT count(*) AS count FROM requests WHERE state = 'in_flight'").get() as { count: number }).count;
  } catch {
    return 0; // The child has not created its tables yet.
  } finally {
    db.close();
  }
}

describe('kill -9 with streams in flight', () => {
  it('marks those requests interrupted on the next start, and the database stays intact', async () => {
    const token = generateToken();
    const { child, port } = await startChild(token);
    const exited = once(child, 'exit');
    await Promise.all(Array.from({ length: STREAMS }, () => openStream(port, token)));
    // The log writes a stream's in-flight row at its next post, on its own thread.
    await expect.poll(inFlightRowsWritten).toBe(STREAMS);
    child.kill('SIGKILL');
    await exited;

    const log = createRequestLog({ dataDir, knownSecrets: () => [] });
    try {
      const rows = log.listRequests({ limit: 50 }).rows;
      expect(rows).toHaveLength(STREAMS);
      expect(rows.every((row) => row.state === 'interrupted')).toBe(true);
    } finally {
      await log.close();
    }
    const db = new DatabaseSync(path.join(dataDir, DATABASE_FILE_NAME));
    try {
      expect(db.prepare('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' });
    } finally {
      db.close();
    }
  });
});
