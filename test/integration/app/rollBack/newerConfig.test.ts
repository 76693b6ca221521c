import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addClientToken, addProfile, removeProfile, updateProfile } from '../../../../proxy/app/profiles/configMutations.ts';
import { openConfigStore } from '../../../../proxy/app/profiles/configStore.ts';
import { startAirlock, type Airlock } from '../../../../proxy/app/startAirlock.ts';
import { CONFIG_REVISION } from '../../../../proxy/contracts/config.ts';
import { generateToken, tokenRecord } from '../../../../proxy/http/clientTokens.ts';
import { startGatewaySimulator } from '../../../simulator/server.ts';
import type { GatewaySimulator } from '../../../simulator/types.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../../support/http.ts';
import { memorySecretStore } from '../../../support/memorySecretStore.ts';
import { SENTINEL_KEY } from '../../../support/sentinel.ts';

const NEWER_REVISION = CONFIG_REVISION + 1;
let dataDir: string;
let file: string;
let simulator: GatewaySimulator;
let airlock: Airlock | undefined;
const token = generateToken();

type Tree = Record<string, unknown> & { profiles: Record<string, unknown>[]; clientTokens: Record<string, unknown>[] };
const readTree = (): Tree => JSON.parse(readFileSync(file, 'utf8')) as Tree;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-newer-config-'));
  file = path.join(dataDir, 'airlock.json');
  simulator = await startGatewaySimulator();
  const store = openConfigStore(dataDir);
  await store.update((config) => addProfile(config, { id: 'main', name: 'Main', baseUrl: simulator.baseUrl }, { activate: true }));
  await store.update((config) => addProfile(config, { id: 'spare', name: 'Spare', baseUrl: simulator.baseUrl }));
  await store.update((config) => addClientToken(config, tokenRecord('aider', token, null, 1)));
  store.close();
  // What an updated Airlock saved: its revision, and settings of its own at every level.
  const tree = readTree();
  tree.configRevision = NEWER_REVISION;
  tree.futureTop = [1, 2];
  (tree.settings as Record<string, unknown>).futureSetting = { on: true };
  const [main, spare] = tree.profiles;
  (main?.budget as Record<string, unknown>).weeklyCredits = 50;
  if (spare) spare.futureProfileField = 'x';
  if (tree.clientTokens[0]) tree.clientTokens[0].scopes = ['chat'];
  writeFileSync(file, JSON.stringify(tree, null, 2));
  airlock = await startAirlock({ dataDir, port: 0, env: {}, secrets: memorySecretStore({ main: SENTINEL_KEY }) });
});
afterAll(async () => {
  await airlock?.stop();
  await simulator?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("an airlock.json holding a newer Airlock's settings (a roll-back)", () => {
  it('is used: its client tokens and profiles work, the newer settings aside', async () => {
    expect(airlock?.store.problem()).toBeNull();
    const reply = await rawRequest(`${airlock?.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
      body: chatBody(),
    });
    expect(reply.status).toBe(200);
  });

  it('names the settings it does not use, at start and on the notice board', () => {
    const notice = airlock?.noticeBoard.list().find((entry) => entry.kind === 'config_newer');
    expect(notice?.cause).toBe(
      `airlock.json holds settings of a newer Airlock (revision ${NEWER_REVISION}; this one knows ${CONFIG_REVISION}) that this one does not use: ` +
        'profiles[0].budget.weeklyCredits, profiles[1].futureProfileField, clientTokens[0].scopes, settings.futureSetting, futureTop. ' +
        'They stay in the file through every change made here; the other settings are in use.',
    );
    expect(airlock?.notices).toContain(notice?.cause);
  });

  it('keeps them through an edit made here, except those of a profile the edit removed', async () => {
    await airlock?.store.update((config) => removeProfile(updateProfile(config, 'main', { name: 'Renamed' }), 'spare'));
    const tree = readTree();
    expect(tree.configRevision).toBe(NEWER_REVISION);
    expect(tree.futureTop).toEqual([1, 2]);
    expect(tree.settings).toMatchObject({ futureSetting: { on: true } });
    expect(tree.profiles).toEqual([expect.objectContaining({ id: 'main', name: 'Renamed', budget: { weeklyCredits: 50 } })]);
    expect(tree.clientTokens).toEqual([expect.objectContaining({ name: 'aider', scopes: ['chat'] })]);
    // Read back, the file is still in use, with the edit.
    airlock?.store.reload();
    expect(airlock?.store.problem()).toBeNull();
    expect(airlock?.store.snapshot().profiles.map((profile) => profile.name)).toEqual(['Renamed']);
  });
});
