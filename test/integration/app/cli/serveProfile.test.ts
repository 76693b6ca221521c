import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addProfile } from '../../../../proxy/app/profiles/configMutations.ts';
import { openConfigStore } from '../../../../proxy/app/profiles/configStore.ts';
import { startAirlock } from '../../../../proxy/app/startAirlock.ts';
import { memorySecretStore } from '../../../support/memorySecretStore.ts';

const AIRLOCK_BIN = fileURLToPath(new URL('../../../../proxy/app/cli/bin.js', import.meta.url));
const REFUSAL = 'no profile with id "nope" (profiles: main, backup)';

let dataDir: string;
/** A port something already listens on: a serve that got as far as listening fails there at once instead of running. */
let takenPort: Server;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-serve-profile-'));
  const store = openConfigStore(dataDir);
  await store.update((config) => addProfile(config, { id: 'main', name: 'Main', baseUrl: 'https://gw.example/v1' }, { activate: true }));
  await store.update((config) => addProfile(config, { id: 'backup', name: 'Backup', baseUrl: 'https://backup.example/v1' }));
  store.close();
  takenPort = createServer();
  await new Promise<void>((resolve) => takenPort.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  await new Promise((resolve) => takenPort.close(resolve));
  rmSync(dataDir, { recursive: true, force: true });
});

describe('serving a profile chosen on the command line', () => {
  it('refuses an unknown profile before starting, naming the known ones, and leaves the data directory free', async () => {
    await expect(startAirlock({ dataDir, port: 0, env: {}, secrets: memorySecretStore(), profileId: 'nope' })).rejects.toThrow(REFUSAL);
    const airlock = await startAirlock({ dataDir, port: 0, env: {}, secrets: memorySecretStore(), profileId: 'backup' });
    try {
      expect(airlock.config.snapshot().activeProfileId).toBe('backup');
    } finally {
      await airlock.stop();
    }
  });

  it('`airlock serve --profile nope` says so in one line and exits 1', async () => {
    const port = (takenPort.address() as AddressInfo).port;
    const run = await promisify(execFile)(process.execPath, [
      AIRLOCK_BIN,
      'serve',
      '--data-dir',
      dataDir,
      '--port',
      String(port),
      '--profile',
      'nope',
    ]).then(
      ({ stdout }) => ({ code: 0, stdout, stderr: '' }),
      (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
    );
    expect(run).toEqual({ code: 1, stdout: '', stderr: `airlock: ${REFUSAL}\n` });
  });
});
