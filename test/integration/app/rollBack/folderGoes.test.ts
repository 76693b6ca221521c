import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addClientToken, addProfile } from '../../../../proxy/app/profiles/configMutations.ts';
import { openConfigStore } from '../../../../proxy/app/profiles/configStore.ts';
import { RUN_ONLY_LOG_DIR_NAME } from '../../../../proxy/app/runOnlyLog.ts';
import { startAirlock, type Airlock } from '../../../../proxy/app/startAirlock.ts';
import { generateToken, tokenRecord } from '../../../../proxy/http/clientTokens.ts';
import { DATABASE_FILE_NAME, SCHEMA_VERSION } from '../../../../proxy/store/schema.ts';
import { startGatewaySimulator } from '../../../simulator/server.ts';
import type { GatewaySimulator } from '../../../simulator/types.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../../support/http.ts';
import { memorySecretStore } from '../../../support/memorySecretStore.ts';
import { SENTINEL_KEY } from '../../../support/sentinel.ts';
import { writeNewerLog } from './newerLogFiles.ts';

let dataDir: string;
let simulator: GatewaySimulator;
let airlock: Airlock | undefined;
const token = generateToken();

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-folder-goes-'));
  simulator = await startGatewaySimulator();
  const store = openConfigStore(dataDir);
  const prices = [{ model: 'gpt-4o-mini', inputPer1M: 1, outputPer1M: 2 }];
  await store.update((config) =>
    addProfile(config, { id: 'work', name: 'Work', baseUrl: simulator.baseUrl, budget: { dailyCredits: 100 }, prices }, { activate: true }),
  );
  await store.update((config) => addClientToken(config, tokenRecord('tool', token, 'work', 1)));
  store.close();
  writeNewerLog(dataDir, [{ id: 'alk_newer_file', costCredits: 0.5, profileId: 'work' }], []);
});

const start = (): Promise<Airlock> => startAirlock({ dataDir, port: 0, env: {}, secrets: memorySecretStore({ work: SENTINEL_KEY }) });
afterAll(async () => {
  await airlock?.stop();
  await simulator?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('an ordinary roll-back run, then the update back', () => {
  it('folds the log apart and leaves no folder, so later starts have nothing to fold', async () => {
    airlock = await start();
    const reply = await rawRequest(`${airlock.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
      body: chatBody(),
    });
    expect(reply.status).toBe(200);
    await airlock.stop();
    airlock = undefined;
    const apart = path.join(dataDir, RUN_ONLY_LOG_DIR_NAME);
    // What a run leaves beside its log (its clean close record, its disk-space reserve) is the log's own.
    expect(readdirSync(apart).sort()).toEqual(['requests-closed.json', 'requests.db', 'unwritten-spend.reserve']);
    const db = new DatabaseSync(path.join(dataDir, DATABASE_FILE_NAME));
    db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
    db.close();
    airlock = await start();
    // Kept, the folder would be folded again at every start, each one a pass over both logs.
    expect(existsSync(apart)).toBe(false);
    expect(airlock.log.spendSince({ sinceMs: 0, profileId: 'work' })).toBeGreaterThan(0.5);
  });
});
