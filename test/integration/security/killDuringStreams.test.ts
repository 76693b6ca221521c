import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateToken } from '../../../proxy/access/clientTokens.ts';
import { createRequestLog } from '../../../proxy/log/requestLog.ts';
import { startGatewaySimulator, type GatewaySimulator } from '../../simulator/index.ts';
import { chatBody, JSON_HEADERS } from '../../support/http.ts';

const fixture = fileURLToPath(new URL('./fixtures/airlockChild.ts', import.meta.url));
let simulator: GatewaySimulator;
let dataDir: string;

beforeAll(async () => {
  simulator = await startGatewaySimulator({ streamChunkCount: 200, streamChunkIntervalMs: 50 });
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-kill-'));
});
afterAll(async () => {
  await simulator.close();
  rmSync(dataDir, { recursive: true, force: true });
});

function startChild(token: string): Promise<{ pid: number; port: number }> {
  const child = spawn(process.execPath, [fixture, dataDir, simulator.baseUrl, token], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the Airlock child did not start')), 20_000);
    child.stdout.on('data', (chunk: Buffer) => {
      const port = /port (\d+)/.exec(chunk.toString())?.[1];
      if (port) {
        clearTimeout(timer);
        resolve({ pid: child.pid!, port: Number(port) });
      }
    });
    child.once('exit', (code) => reject(new Error(`the Airlock child exited with ${code}`)));
  });
}

function openStream(port: number, token: string): Promise<void> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/v1/chat/completions', method: 'POST', headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` } }, (res) => {
      res.once('data', () => resolve());
      res.on('error', () => undefined);
    });
    req.on('error', () => resolve());
    req.end(chatBody({ stream: true }));
  });
}

describe('kill -9 with streams in flight', () => {
  it('marks those requests interrupted on the next start, and the database stays intact', async () => {
    const token = generateToken();
    const child = await startChild(token);
    await Promise.all([openStream(child.port, token), openStream(child.port, token), openStream(child.port, token)]);
    // The log writes the in-flight rows within its flush interval; give it a few.
    await delay(400);
    process.kill(child.pid, 'SIGKILL');
    await delay(200);

    const log = createRequestLog({ dataDir, knownSecrets: () => [] });
    try {
      const rows = log.listRequests({ limit: 50 }).rows;
      expect(rows).toHaveLength(3);
      expect(rows.every((row) => row.state === 'interrupted')).toBe(true);
    } finally {
      await log.close();
    }
    const db = new DatabaseSync(path.join(dataDir, 'requests.db'));
    try {
      expect(db.prepare('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' });
    } finally {
      db.close();
    }
  }, 40_000);
});
