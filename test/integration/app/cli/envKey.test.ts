import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProfileListResponse } from '../../../../proxy/contracts/profileViews.ts';
import type { StatusResponse } from '../../../../proxy/contracts/status.ts';
import { startupLines } from '../../../../proxy/app/cli/serve.ts';
import { addProfile } from '../../../../proxy/app/profiles/configMutations.ts';
import { openConfigStore } from '../../../../proxy/app/profiles/configStore.ts';
import { startAirlock, type Airlock } from '../../../../proxy/app/startAirlock.ts';
import { rawRequest } from '../../../support/http.ts';
import { findSentinel, SENTINEL_KEY } from '../../../support/sentinel.ts';
import { memorySecretStore, unavailableSecretStore } from '../../../support/memorySecretStore.ts';

let airlock: Airlock;
let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-envkey-'));
  const store = openConfigStore(dataDir);
  await store.update((config) => addProfile(config, { id: 'main', name: 'Main', baseUrl: 'http://127.0.0.1:9/v1' }, { activate: true }));
  store.close();
  // No key in the keychain: the run's key is AIRLOCK_API_KEY's.
  airlock = await startAirlock({ dataDir, port: 0, env: { AIRLOCK_API_KEY: SENTINEL_KEY }, secrets: memorySecretStore() });
});
afterAll(async () => {
  await airlock.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const control = async <T>(endpoint: string): Promise<T> =>
  JSON.parse(
    (await rawRequest(`${airlock.proxy.url}/_airlock/api/${endpoint}`, { headers: { authorization: `Bearer ${airlock.controlToken}` } }))
      .body,
  ) as T;

describe('with AIRLOCK_API_KEY set', () => {
  it("serve's start line says the key comes from the environment, not that it is not set", () => {
    const line = startupLines(airlock, { dataDirArgument: null }).find((candidate) => candidate.includes('Active profile'));
    expect(line).toContain(`(key from AIRLOCK_API_KEY for this run, ends in ${SENTINEL_KEY.slice(-4)})`);
    expect(findSentinel(startupLines(airlock, { dataDirArgument: null }).join('\n'))).toBeNull();
  });

  it('the status and the profile list say so too, and the first-run steps count the key as set', async () => {
    const status = await control<StatusResponse>('status');
    expect(status.activeProfile).toEqual({
      id: 'main',
      name: 'Main',
      key: { set: true, lastFour: SENTINEL_KEY.slice(-4), fromEnvironment: true },
    });
    expect(status.firstRun.hasKey).toBe(true);
    const profiles = await control<ProfileListResponse>('profiles');
    expect(profiles.profiles[0]?.key).toEqual({ set: true, lastFour: SENTINEL_KEY.slice(-4), fromEnvironment: true });
  });
});

describe('with AIRLOCK_API_KEY set and no keychain', () => {
  it("serve's start lines do not ask for AIRLOCK_API_KEY again: they say this run takes the key from it", async () => {
    const noKeychainDir = mkdtempSync(path.join(tmpdir(), 'airlock-envkey-nokeychain-'));
    const store = openConfigStore(noKeychainDir);
    await store.update((config) => addProfile(config, { id: 'main', name: 'Main', baseUrl: 'http://127.0.0.1:9/v1' }, { activate: true }));
    store.close();
    const running = await startAirlock({
      dataDir: noKeychainDir,
      port: 0,
      env: { AIRLOCK_API_KEY: SENTINEL_KEY },
      secrets: unavailableSecretStore(),
    });
    try {
      const printed = startupLines(running, { dataDirArgument: null }).join('\n');
      expect(printed).toContain('no OS keychain');
      expect(printed).not.toMatch(/set AIRLOCK_API_KEY/);
      expect(printed).toContain('this run takes the gateway key from AIRLOCK_API_KEY');
    } finally {
      await running.stop();
      rmSync(noKeychainDir, { recursive: true, force: true });
    }
  });
});

describe('without a key for the profile served', () => {
  async function startedWith(options: { commandLineBaseUrl?: string }): Promise<{ lines: string[]; stop: () => Promise<void> }> {
    const directory = mkdtempSync(path.join(tmpdir(), 'airlock-nokey-'));
    const store = openConfigStore(directory);
    await store.update((config) => addProfile(config, { id: 'main', name: 'Main', baseUrl: 'http://127.0.0.1:9/v1' }, { activate: true }));
    store.close();
    const running = await startAirlock({ dataDir: directory, port: 0, env: {}, secrets: memorySecretStore(), ...options });
    return {
      lines: startupLines(running, { dataDirArgument: null }),
      stop: async () => {
        await running.stop();
        rmSync(directory, { recursive: true, force: true });
      },
    };
  }

  it('serve says how to give the saved profile its key', async () => {
    const started = await startedWith({});
    try {
      expect(started.lines.find((line) => line.includes('Active profile'))).toContain(
        '(key not set: `npx airlock key set main`, or AIRLOCK_API_KEY for this run)',
      );
    } finally {
      await started.stop();
    }
  });

  it('serve --base-url says its key can only come from AIRLOCK_API_KEY', async () => {
    const started = await startedWith({ commandLineBaseUrl: 'https://gw.example/v1' });
    try {
      expect(started.lines.find((line) => line.includes('Active profile'))).toContain(
        '(key not set: a --base-url run takes it from AIRLOCK_API_KEY only; set it and start again)',
      );
    } finally {
      await started.stop();
    }
  });
});
