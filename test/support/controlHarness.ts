import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CapabilityService } from '../../proxy/app/capabilities/capabilityService.ts';
import type { ControlApi } from '../../proxy/app/control/createControlRouter.ts';
import type { RequestLog } from '../../proxy/store/requestLog.ts';
import type { SpendGateControl } from '../../proxy/spend/spendGate.ts';
import type { ConfigStore } from '../../proxy/app/profiles/configStore.ts';
import { startAirlock } from '../../proxy/app/startAirlock.ts';
import type { KeyCache } from '../../proxy/app/secrets/keyCache.ts';
import { CONTROL_TOKEN_ACCOUNT, type SecretStore } from '../../proxy/contracts/secretStore.ts';
import type { ProxyHandle } from '../../proxy/http/startServer.ts';
import { startGatewaySimulator, type GatewaySimulator, type SimulatorOptions } from '../simulator/index.ts';
import { expect } from 'vitest';
import type { StoredRequest } from '../../proxy/contracts/log.ts';
import { memorySecretStore } from './memorySecretStore.ts';
import { SENTINEL_KEY } from './sentinel.ts';
import type { TokenSecretResponse } from '../../proxy/contracts/clientTokens.ts';

export const CONTROL_TOKEN = 'alkc_control-token-for-tests-0123456789abcdef';

export interface ControlHarnessOptions {
  simulator?: SimulatorOptions;
  /** The built window to serve; tests of the API alone pass a directory without one. */
  uiDir?: string;
  /** Where Connect looks for the tools' files; an empty folder in the data directory by default, never the real home. */
  homeDir?: string;
}

export interface ControlHarness {
  proxy: ProxyHandle;
  simulator: GatewaySimulator;
  control: ControlApi;
  store: ConfigStore;
  keys: KeyCache;
  secrets: SecretStore;
  log: RequestLog;
  spendGate: SpendGateControl;
  capabilities: CapabilityService;
  dataDir: string;
  homeDir: string;
  /** `fetch` against the control API with the control token. */
  api(pathAndQuery: string, init?: RequestInit): Promise<Response>;
  /** `api`, then the answer's JSON (undefined for an empty body); a status other than 2xx fails the test with it. */
  json<T>(pathAndQuery: string, init?: RequestInit): Promise<T>;
  /** The logged request a proxied answer names (`x-airlock-request-id`), once its row is done. */
  loggedDetail(response: { headers: IncomingHttpHeaders }): Promise<StoredRequest>;
  close(): Promise<void>;
}

/**
 * Airlock started exactly as `airlock serve` starts it (startAirlock), with an in-memory keychain
 * holding a known control token, and a simulator as the gateway.
 */
export async function startControlHarness(options: ControlHarnessOptions = {}): Promise<ControlHarness> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-control-'));
  const simulator = await startGatewaySimulator(options.simulator);
  const secrets = memorySecretStore({ [CONTROL_TOKEN_ACCOUNT]: CONTROL_TOKEN });
  const homeDir = options.homeDir ?? path.join(dataDir, 'home');
  mkdirSync(homeDir, { recursive: true });
  const airlock = await startAirlock({ dataDir, port: 0, env: {}, secrets, homeDir, uiDir: options.uiDir ?? path.join(dataDir, 'no-ui') });
  const { proxy } = airlock;
  const api = (pathAndQuery: string, init: RequestInit = {}): Promise<Response> =>
    fetch(`${proxy.url}/_airlock/api${pathAndQuery}`, {
      ...init,
      headers: {
        authorization: `Bearer ${CONTROL_TOKEN}`,
        ...(init.body ? { 'content-type': 'application/json' } : {}),
        ...init.headers,
      },
    });
  return {
    proxy,
    simulator,
    control: airlock.control,
    store: airlock.store,
    keys: airlock.keys,
    secrets,
    log: airlock.log,
    spendGate: airlock.spendGate,
    capabilities: airlock.capabilities,
    dataDir,
    homeDir,
    api,
    async json<T>(pathAndQuery: string, init: RequestInit = {}): Promise<T> {
      const response = await api(pathAndQuery, init);
      const text = await response.text();
      if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${pathAndQuery}: ${response.status} ${text}`);
      return (text === '' ? undefined : JSON.parse(text)) as T;
    },
    async loggedDetail(response) {
      const id = String(response.headers['x-airlock-request-id']);
      await expect
        .poll(async () => {
          await airlock.log.flush();
          return airlock.log.getRequest(id)?.row.state;
        })
        .toBe('done');
      return airlock.log.getRequest(id) as StoredRequest;
    },
    async close() {
      await airlock.stop();
      await simulator.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Through the control API, as the window would: a profile `main` on the harness's simulator with the
 * sentinel key, made active, and a client token named `agent`. Returns that token.
 */
export async function setUpMainProfileAndAgent(harness: ControlHarness): Promise<string> {
  const json = (method: string, body: unknown): RequestInit => ({ method, body: JSON.stringify(body) });
  await harness.json('/profiles', json('POST', { id: 'main', name: 'Main', baseUrl: harness.simulator.baseUrl }));
  await harness.json('/profiles/main/key', json('PUT', { key: SENTINEL_KEY }));
  await harness.json('/profiles/main/activate', { method: 'POST' });
  return (await harness.json<TokenSecretResponse>('/tokens', json('POST', { name: 'agent' }))).token;
}
