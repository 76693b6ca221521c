import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startDesktopRuntime } from '../../../electron/desktopRuntime.ts';
import { CAPABILITIES_FILE_NAME } from '../../../proxy/app/capabilities/capabilityService.ts';
import { addProfile } from '../../../proxy/app/profiles/configMutations.ts';
import { openConfigStore } from '../../../proxy/app/profiles/configStore.ts';
import { KeychainNotAnsweringError, KeychainUnavailableError, type SecretStore } from '../../../proxy/contracts/secretStore.ts';
import { memorySecretStore } from '../../support/memorySecretStore.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';
import { rawRequest } from '../../support/http.ts';

let dataDir = '';

afterEach(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

async function dataDirWithProfile(): Promise<string> {
  const directory = mkdtempSync(path.join(tmpdir(), 'airlock-desktop-runtime-'));
  const store = openConfigStore(directory);
  await store.update((config) => addProfile(config, { id: 'work', name: 'Work', baseUrl: 'https://gw.example/v1' }, { activate: true }));
  store.close();
  return directory;
}

function failingKeychain(error: () => Error): SecretStore {
  const fail = async (): Promise<never> => {
    throw error();
  };
  return { get: fail, set: fail, delete: fail };
}

describe('the desktop runtime at start', () => {
  it('runs when the keychain has not answered yet (an unlock prompt open), with the keychain alarm, so the keys are read when it answers', async () => {
    dataDir = await dataDirWithProfile();
    const runtime = await startDesktopRuntime({ dataDir, port: 0, keychain: failingKeychain(() => new KeychainNotAnsweringError(30_000)) });
    try {
      const status = await rawRequest(`${runtime.proxy.url}/_airlock/api/status`, {
        headers: { authorization: `Bearer ${runtime.controlToken}` },
      });
      expect(status.status).toBe(200);
      expect(JSON.parse(status.body).alarms).toContainEqual({
        kind: 'keychain_unavailable',
        message: expect.stringContaining('did not answer within 30 s'),
      });
    } finally {
      await runtime.stop(0);
    }
  });

  it('runs with the alarm naming the command when its data directory finds the key only under the account every directory shares', async () => {
    dataDir = await dataDirWithProfile();
    // A temporary directory is never the default one: the runtime reads its keys under its own accounts.
    const runtime = await startDesktopRuntime({ dataDir, port: 0, keychain: memorySecretStore({ work: SENTINEL_KEY }) });
    try {
      const status = await rawRequest(`${runtime.proxy.url}/_airlock/api/status`, {
        headers: { authorization: `Bearer ${runtime.controlToken}` },
      });
      const { alarms, activeProfile } = JSON.parse(status.body);
      expect(alarms).toContainEqual({
        kind: 'keychain_unavailable',
        message: expect.stringContaining(`npx airlock key set work --data-dir ${dataDir}`),
      });
      expect(activeProfile.key.set).toBe(false);
      expect(status.body).not.toContain(SENTINEL_KEY);
    } finally {
      await runtime.stop(0);
    }
  });

  it("hands the shell the proxy's notices and tells it when they change, for its desktop notifications", async () => {
    dataDir = await dataDirWithProfile();
    writeFileSync(path.join(dataDir, CAPABILITIES_FILE_NAME), '{"version": 1, "prof');
    const runtime = await startDesktopRuntime({ dataDir, port: 0, keychain: memorySecretStore({}) });
    try {
      const [setAside] = runtime.notices();
      expect(setAside?.kind).toBe('capabilities_file');
      let changes = 0;
      runtime.onNoticesChange(() => {
        changes += 1;
      });
      const dismissed = await rawRequest(`${runtime.proxy.url}/_airlock/api/notices/${setAside?.id}/dismiss`, {
        method: 'POST',
        headers: { authorization: `Bearer ${runtime.controlToken}` },
      });
      expect(dismissed.status).toBe(200);
      expect(changes).toBe(1);
      expect(runtime.notices()).toEqual([]);
    } finally {
      await runtime.stop(0);
    }
  });

  it('still shows the fix instead of running when there is no keychain at all', async () => {
    dataDir = await dataDirWithProfile();
    await expect(
      startDesktopRuntime({ dataDir, port: 0, keychain: failingKeychain(() => new KeychainUnavailableError('no D-Bus session')) }),
    ).rejects.toThrow(/no D-Bus session/);
  });

  it("names its data directory in the commands it suggests when that is not the default one (AIRLOCK_DATA_DIR's)", async () => {
    dataDir = await dataDirWithProfile();
    const runtime = await startDesktopRuntime({ dataDir, port: 0, keychain: memorySecretStore({}) });
    try {
      const tokenless = await rawRequest(`${runtime.proxy.url}/v1/models`);
      expect(tokenless.status).toBe(401);
      expect(JSON.parse(tokenless.body).error.message).toContain(`token create <name> --data-dir ${dataDir}`);
    } finally {
      await runtime.stop(0);
    }
  });
});
