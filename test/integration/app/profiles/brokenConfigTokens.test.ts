import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addClientToken, addProfile } from '../../../../proxy/app/profiles/configMutations.ts';
import { openConfigStore } from '../../../../proxy/app/profiles/configStore.ts';
import { startAirlock, type Airlock } from '../../../../proxy/app/startAirlock.ts';
import { generateToken, tokenRecord } from '../../../../proxy/http/clientTokens.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../../support/http.ts';
import { memorySecretStore } from '../../../support/memorySecretStore.ts';
import { SENTINEL_KEY } from '../../../support/sentinel.ts';

let airlock: Airlock;
let dataDir: string;
let halfWritten: string;
const token = generateToken();

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-brokentokens-'));
  const store = openConfigStore(dataDir);
  await store.update((config) => addProfile(config, { id: 'main', name: 'Main', baseUrl: 'http://127.0.0.1:9/v1' }, { activate: true }));
  await store.update((config) => addClientToken(config, tokenRecord('aider', token, null, 1)));
  store.close();
  // A save cut off by a crash or a full disk of another writer (an editor, a sync tool): half of the file.
  const file = path.join(dataDir, 'airlock.json');
  halfWritten = readFileSync(file, 'utf8').slice(0, 300);
  writeFileSync(file, halfWritten);
  airlock = await startAirlock({ dataDir, port: 0, env: { AIRLOCK_API_KEY: SENTINEL_KEY }, secrets: memorySecretStore() });
});
afterAll(async () => {
  await airlock?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('an airlock.json that was broken when Airlock started', () => {
  it("refuses a client's token with the file's problem and its fix, not as a revoked token to make again", async () => {
    const reply = await rawRequest(`${airlock.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
      body: chatBody(),
    });

    expect(reply.status).toBe(401);
    const { message } = JSON.parse(reply.body).error as { message: string };
    expect(message).toMatch(/^Airlock could not read its settings, where client tokens are kept: airlock\.json is not valid JSON/);
    expect(message).toMatch(/fix the file by hand, or delete it to start over/);
    // Making a new token is refused while the file is broken: the old refusal sent the user there.
    expect(message).not.toMatch(/unknown here|token create/);
    expect(readFileSync(path.join(dataDir, 'airlock.json'), 'utf8')).toBe(halfWritten);
  });
});
