import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Airlock, startAirlock } from '../../../../proxy/app/startAirlock.ts';
import { memorySecretStore } from '../../../support/memorySecretStore.ts';

const AIRLOCK_BIN = fileURLToPath(new URL('../../../../proxy/app/cli/bin.js', import.meta.url));

let parentDir: string;
/** Another program on a port: it answers HTTP, but not as Airlock. */
let otherProgram: Server;
/** Another Airlock, on a data directory of its own. */
let otherAirlock: Airlock;

beforeAll(async () => {
  parentDir = mkdtempSync(path.join(tmpdir(), 'airlock-port-taken-'));
  otherProgram = createServer((_req, res) => res.writeHead(404).end());
  await new Promise<void>((resolve) => otherProgram.listen(0, '127.0.0.1', resolve));
  otherAirlock = await startAirlock({ dataDir: path.join(parentDir, 'other'), port: 0, env: {}, secrets: memorySecretStore() });
});

afterAll(async () => {
  await otherAirlock.stop();
  await new Promise((resolve) => otherProgram.close(resolve));
  rmSync(parentDir, { recursive: true, force: true });
});

async function serveOn(port: number): Promise<{ code: number; stderr: string }> {
  const args = [AIRLOCK_BIN, 'serve', '--data-dir', path.join(parentDir, 'mine'), '--port', String(port)];
  return promisify(execFile)(process.execPath, args).then(
    ({ stderr }) => ({ code: 0, stderr }),
    (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
  );
}

describe('`airlock serve` on a port that is taken', () => {
  it('says how to find the other program and how to serve elsewhere, with no tray a headless run does not have', async () => {
    const port = (otherProgram.address() as AddressInfo).port;
    const run = await serveOn(port);
    expect(run.code).toBe(1);
    expect(run.stderr).not.toMatch(/tray/i);
    expect(run.stderr).toContain(`lsof -i :${port}`);
    expect(run.stderr).toMatch(/`npx airlock serve --port <other> --data-dir \S+mine`/);
  });

  it('names another Airlock when that is what answers there', async () => {
    const run = await serveOn(otherAirlock.proxy.port);
    expect(run.code).toBe(1);
    expect(run.stderr).not.toMatch(/tray/i);
    expect(run.stderr).toContain(`Another Airlock is serving on 127.0.0.1:${otherAirlock.proxy.port}`);
    expect(run.stderr).not.toContain('lsof');
  });
});
