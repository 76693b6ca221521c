import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ProfileView } from '../../proxy/contracts/profileViews.ts';
import type { RequestDetail } from '../../proxy/contracts/requests.ts';
import { poolKeyAccount, type PoolKey } from '../../proxy/contracts/keyPool.ts';
import type { ProfileInput } from '../../proxy/contracts/profile.ts';
import { generateToken, tokenRecord } from '../../proxy/http/clientTokens.ts';
import { addClientToken, addProfile } from '../../proxy/app/profiles/configMutations.ts';
import { openConfigStore } from '../../proxy/app/profiles/configStore.ts';
import { startAirlock, type Airlock } from '../../proxy/app/startAirlock.ts';
import { JSON_HEADERS, rawRequest, type RawResponse } from './http.ts';
import { memorySecretStore } from './memorySecretStore.ts';

export const POOL_PROFILE_ID = 'pool';

/** Airlock (startAirlock, as `airlock serve` runs it) with one pooled profile whose keys are in an in-memory keychain. */
export interface PooledAirlock {
  airlock: Airlock;
  dataDir: string;
  /** Sends a request as a client with its Airlock token. */
  call(pathName: string, body: string, headers?: Record<string, string>): Promise<RawResponse>;
  profileView(): Promise<ProfileView>;
  detail(requestId: string): Promise<RequestDetail>;
  stop(): Promise<void>;
}

export async function startPooledAirlock(options: {
  baseUrl: string;
  keys: Array<PoolKey & { secret: string }>;
  profile?: Partial<ProfileInput>;
}): Promise<PooledAirlock> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-pool-'));
  const token = generateToken();
  const store = openConfigStore(dataDir);
  const keyPool = options.keys.map(({ id, label }) => ({ id, label }));
  await store.update((config) =>
    addProfile(
      config,
      // Translated, so a Messages request never starts a native probe that would spend a key's limit.
      {
        id: POOL_PROFILE_ID,
        name: 'Pooled',
        baseUrl: options.baseUrl,
        protocolModes: { messages: 'translate', responses: 'translate' },
        keyPool,
        ...options.profile,
      },
      { activate: true },
    ),
  );
  await store.update((config) => addClientToken(config, tokenRecord('pool-test', token, null, Date.now())));
  store.close();
  const secrets = memorySecretStore(Object.fromEntries(options.keys.map((key) => [poolKeyAccount(POOL_PROFILE_ID, key.id), key.secret])));
  const airlock = await startAirlock({ dataDir, port: 0, env: {}, secrets });
  const control = { authorization: `Bearer ${airlock.controlToken}` };
  const controlJson = async <T>(endpoint: string): Promise<T> =>
    JSON.parse((await rawRequest(`${airlock.proxy.url}/_airlock/api/${endpoint}`, { headers: control })).body) as T;
  return {
    airlock,
    dataDir,
    call: (pathName, body, headers = {}) =>
      rawRequest(`${airlock.proxy.url}${pathName}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'x-api-key': token, ...JSON_HEADERS, ...headers },
        body,
      }),
    profileView: async () => {
      const list = await controlJson<{ profiles: ProfileView[] }>('profiles');
      const view = list.profiles.find((candidate) => candidate.profile.id === POOL_PROFILE_ID);
      if (!view) throw new Error('pooled profile missing');
      return view;
    },
    detail: async (requestId) => {
      await airlock.log.flush();
      return controlJson<RequestDetail>(`requests/${requestId}`);
    },
    stop: async () => {
      await airlock.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
