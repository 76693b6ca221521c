import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataDirInUseError, LOCK_FILE_NAME } from '../../../../proxy/app/dataDirLock.ts';
import { startAirlock, type Airlock } from '../../../../proxy/app/startAirlock.ts';
import { rawRequest } from '../../../support/http.ts';
import { memorySecretStore } from '../../../support/memorySecretStore.ts';

const AIRLOCK_BIN = fileURLToPath(new URL('../../../../proxy/app/cli/bin.js', import.meta.url));
const CLI_TIMEOUT_MS = 20_000;

let dataDir: string;
let running: Airlock;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-datadir-lock-'));
  running = await startAirlock({ dataDir, port: 0, env: {}, secrets: memorySecretStore() });
});

afterAll(async () => {
  await running?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('one Airlock per data directory', () => {
  it('refuses a second start on the same directory and leaves the first serving', async () => {
    await expect(startAirlock({ dataDir, port: 0, env: {}, secrets: memorySecretStore() })).rejects.toThrow(DataDirInUseError);
    expect((await rawRequest(`${running.proxy.url}/`)).status).toBe(200);
  });

  it('`airlock serve` on another port says which process has the directory, and exits 1', async () => {
    const run = await promisify(execFile)(process.execPath, [AIRLOCK_BIN, 'serve', '--data-dir', dataDir, '--port', '65000'], {
      timeout: CLI_TIMEOUT_MS,
    }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `airlock: Another Airlock (process ${process.pid}) is running with the data directory ${dataDir}. ` +
        'Quit it (or stop its `npx airlock serve`) first, or give this one its own directory with --data-dir.\n',
    );
  });

  it('frees the directory on stop, for the next start', async () => {
    await running.stop();
    expect(existsSync(path.join(dataDir, LOCK_FILE_NAME))).toBe(false);
    running = await startAirlock({ dataDir, port: 0, env: {}, secrets: memorySecretStore() });
    expect(existsSync(path.join(dataDir, LOCK_FILE_NAME))).toBe(true);
  });
});
