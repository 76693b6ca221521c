import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CAPABILITIES_FILE_NAME } from '../../../../proxy/app/capabilities/capabilityService.ts';
import { REASONING_EFFORT_REFUSALS_FILE_NAME } from '../../../../proxy/app/capabilities/reasoningEffortFile.ts';
import { addProfile, updateSettings } from '../../../../proxy/app/profiles/configMutations.ts';
import { openConfigStore } from '../../../../proxy/app/profiles/configStore.ts';
import { startAirlock, type Airlock } from '../../../../proxy/app/startAirlock.ts';
import { gatewayKeyAccount, type SecretStore } from '../../../../proxy/contracts/secretStore.ts';
import type { Settings } from '../../../../proxy/contracts/config.ts';
import type { StatusResponse } from '../../../../proxy/contracts/status.ts';
import { startGatewaySimulator, type GatewaySimulator } from '../../../simulator/index.ts';
import { rawRequest } from '../../../support/http.ts';
import { memorySecretStore } from '../../../support/memorySecretStore.ts';
import { findSentinel, SENTINEL_KEY } from '../../../support/sentinel.ts';

/**
 * What Airlock finds at start (a data file moved aside, the key taken from AIRLOCK_API_KEY) and
 * while running (a capability result it could not save) reaches the window through the status it
 * reads, not only `airlock serve`'s terminal; a dismissed notice stays away until it happens again.
 */
let simulator: GatewaySimulator;
let airlock: Airlock | null = null;
let dataDir: string;

beforeAll(async () => {
  simulator = await startGatewaySimulator();
});
afterAll(async () => {
  await simulator.close();
});
afterEach(async () => {
  await airlock?.stop();
  airlock = null;
  rmSync(dataDir, { recursive: true, force: true });
});

interface StartOptions {
  env?: NodeJS.ProcessEnv;
  keychainKey?: string;
  dirPrefix?: string;
  settings?: (settings: Settings) => Partial<Settings>;
  secrets?: SecretStore;
}

async function start(options: StartOptions = {}): Promise<Airlock> {
  dataDir = mkdtempSync(path.join(tmpdir(), options.dirPrefix ?? 'airlock-notices-'));
  const store = openConfigStore(dataDir);
  await store.update((config) => {
    const withProfile = addProfile(config, { id: 'sim', name: 'Simulator', baseUrl: simulator.baseUrl }, { activate: true });
    return updateSettings(withProfile, options.settings?.(withProfile.settings) ?? {});
  });
  store.close();
  writeFileSync(path.join(dataDir, CAPABILITIES_FILE_NAME), '{"version": 1, "prof');
  writeFileSync(path.join(dataDir, REASONING_EFFORT_REFUSALS_FILE_NAME), '{"version": 1, "refus');
  const secrets = options.secrets ?? memorySecretStore(options.keychainKey ? { [gatewayKeyAccount('sim')]: options.keychainKey } : {});
  airlock = await startAirlock({ dataDir, port: 0, env: options.env ?? {}, secrets });
  return airlock;
}

async function control<T>(running: Airlock, method: string, endpoint: string): Promise<{ status: number; body: T; text: string }> {
  const response = await rawRequest(`${running.proxy.url}/_airlock/api/${endpoint}`, {
    method,
    headers: { authorization: `Bearer ${running.controlToken}` },
  });
  return { status: response.status, body: JSON.parse(response.body) as T, text: response.body };
}

describe("the window's status", () => {
  it('carries the start notices, each with its time, cause and fix, and never the key', async () => {
    const running = await start({ env: { AIRLOCK_API_KEY: SENTINEL_KEY } });
    const { body: status, text } = await control<StatusResponse>(running, 'GET', 'status');

    expect(status.notices.map((notice) => notice.kind).sort()).toEqual(['capabilities_file', 'environment_key', 'reasoning_efforts_file']);
    for (const notice of status.notices) {
      expect(notice.atMs).toBeGreaterThan(0);
      expect(notice.cause).not.toBe('');
      expect(notice.fix).not.toBe('');
    }
    expect(status.notices.find((notice) => notice.kind === 'capabilities_file')?.cause).toContain(CAPABILITIES_FILE_NAME);
    expect(findSentinel(text)).toBeNull();
    // `airlock serve` still prints them.
    expect(running.notices.some((line) => line.includes(CAPABILITIES_FILE_NAME))).toBe(true);
    expect(running.notices.some((line) => line.includes('AIRLOCK_API_KEY'))).toBe(true);
  });

  it('drops a notice the window dismissed', async () => {
    const running = await start();
    const { body: status } = await control<StatusResponse>(running, 'GET', 'status');
    const setAside = status.notices.find((notice) => notice.kind === 'capabilities_file');

    const dismissed = await control<StatusResponse>(running, 'POST', `notices/${encodeURIComponent(setAside?.id ?? '')}/dismiss`);
    expect(dismissed.status).toBe(200);
    const after = await control<StatusResponse>(running, 'GET', 'status');
    expect(after.body.notices.map((notice) => notice.kind)).toEqual(['reasoning_efforts_file']);
  });

  it('refuses to dismiss a notice it does not hold', async () => {
    const running = await start();
    const answer = await control<{ error: { code: string } }>(running, 'POST', 'notices/no-such-notice/dismiss');
    expect(answer.status).toBe(404);
  });
});
