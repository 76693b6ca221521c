import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateToken, tokenRecord } from '../../../proxy/http/clientTokens.ts';
import { addClientToken, addProfile } from '../../../proxy/app/profiles/configMutations.ts';
import { openConfigStore } from '../../../proxy/app/profiles/configStore.ts';
import { startAirlock, type Airlock } from '../../../proxy/app/startAirlock.ts';
import { gatewayKeyAccount } from '../../../proxy/contracts/secretStore.ts';
import { startGatewaySimulator, type GatewaySimulator } from '../../simulator/index.ts';
import { JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';
import { memorySecretStore } from '../../support/memorySecretStore.ts';

let simulator: GatewaySimulator;
let dataDir: string;
const token = generateToken();

beforeAll(async () => {
  simulator = await startGatewaySimulator();
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-idempotency-'));
  const store = openConfigStore(dataDir);
  await store.update((config) => addProfile(config, { id: 'main', name: 'Main', baseUrl: simulator.baseUrl }, { activate: true }));
  await store.update((config) => addClientToken(config, tokenRecord('images', token, null, Date.now())));
  store.close();
});
afterAll(async () => {
  await simulator.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const startRun = (): Promise<Airlock> =>
  startAirlock({ dataDir, port: 0, env: {}, secrets: memorySecretStore({ [gatewayKeyAccount('main')]: SENTINEL_KEY }) });

const createImage = (airlock: Airlock, idempotencyKey: string) =>
  rawRequest(`${airlock.proxy.url}/v1/images/generations`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${token}`, 'idempotency-key': idempotencyKey },
    body: JSON.stringify({ model: 'gpt-image-1', prompt: 'a lighthouse' }),
  });

describe('a keyed image creation repeated after Airlock restarted', () => {
  it('is answered from the first answer kept in the log, and the gateway creates one image', async () => {
    const firstRun = await startRun();
    const first = await createImage(firstRun, 'restart-1');
    await firstRun.stop();

    const secondRun = await startRun();
    try {
      const repeat = await createImage(secondRun, 'restart-1');
      expect(first.status).toBe(200);
      expect(repeat.status).toBe(200);
      expect(repeat.body).toBe(first.body);
      expect(repeat.headers['x-airlock-idempotent-replay']).toBe('true');
      expect(simulator.received.filter((received) => received.path === '/v1/images/generations')).toHaveLength(1);
    } finally {
      await secondRun.stop();
    }
  });
});
