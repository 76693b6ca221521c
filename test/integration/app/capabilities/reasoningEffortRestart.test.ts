import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { generateToken, tokenRecord } from '../../../../proxy/http/clientTokens.ts';
import { addClientToken, addProfile } from '../../../../proxy/app/profiles/configMutations.ts';
import { openConfigStore } from '../../../../proxy/app/profiles/configStore.ts';
import { startAirlock, type Airlock } from '../../../../proxy/app/startAirlock.ts';
import { gatewayKeyAccount } from '../../../../proxy/contracts/secretStore.ts';
import { DIALECTS, startGatewaySimulator, type GatewaySimulator } from '../../../simulator/index.ts';
import { JSON_HEADERS, rawRequest } from '../../../support/http.ts';
import { memorySecretStore } from '../../../support/memorySecretStore.ts';
import { SENTINEL_KEY } from '../../../support/sentinel.ts';

/**
 * A gateway's refusal of `reasoning_effort` for a model (forward/reasoningEffortRefusals.ts) is kept
 * in the data directory like the capability check's results, so a restart does not pay that 400
 * again for every model and level. OpenAI refuses the parameter for a model without reasoning with
 * a 400 (test/simulator/dialects.ts cites it).
 */
const MODEL = 'gpt-4o-mini';
const FILE_NAME = 'reasoning-effort-refusals.json';
const token = generateToken();

let simulator: GatewaySimulator;
let dataDir: string;
let running: Airlock | null = null;

beforeAll(async () => {
  simulator = await startGatewaySimulator({ dialect: DIALECTS.openai, modelCapabilities: { [MODEL]: { reasoningEffort: false } } });
});
afterAll(async () => {
  await simulator.close();
});
beforeEach(async () => {
  simulator.reset();
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-effort-'));
  const store = openConfigStore(dataDir);
  // Translated always: a native Responses probe would take the model's requests off chat.
  await store.update((config) =>
    addProfile(
      config,
      { id: 'main', name: 'Main', baseUrl: simulator.baseUrl, protocolModes: { messages: 'translate', responses: 'translate' } },
      { activate: true },
    ),
  );
  await store.update((config) => addClientToken(config, tokenRecord('codex', token, null, Date.now())));
  store.close();
});
afterEach(async () => {
  await running?.stop();
  running = null;
  rmSync(dataDir, { recursive: true, force: true });
});

async function start(): Promise<Airlock> {
  await running?.stop();
  running = await startAirlock({ dataDir, port: 0, env: {}, secrets: memorySecretStore({ [gatewayKeyAccount('main')]: SENTINEL_KEY }) });
  return running;
}

/** A Codex turn with high effort, not streamed; its status. */
async function codexTurn(airlock: Airlock, effort = 'high'): Promise<number> {
  const body = JSON.stringify({ model: MODEL, input: 'Say hi.', reasoning: { effort }, store: false });
  const answer = await rawRequest(`${airlock.proxy.url}/v1/responses`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
    body,
  });
  return answer.status;
}

/** The `reasoning_effort` of each chat request the gateway got, in order (undefined: not sent). */
function sentEfforts(): unknown[] {
  return simulator.received
    .filter((request) => request.path === '/v1/chat/completions')
    .map((request) => (JSON.parse(request.body.toString('utf8')) as Record<string, unknown>)['reasoning_effort']);
}

function baseUrlOf(airlock: Airlock): string {
  return airlock.config.snapshot().profiles.find((profile) => profile.id === 'main')!.baseUrl;
}

/** Files in the data directory set aside from the refusals file, with their text. */
function setAside(): Record<string, string> {
  const names = readdirSync(dataDir).filter((name) => name.startsWith('reasoning-effort-refusals') && name !== FILE_NAME);
  return Object.fromEntries(names.map((name) => [name, readFileSync(path.join(dataDir, name), 'utf8')]));
}

describe('a refusal of reasoning_effort learned before a restart', () => {
  it('is remembered: the first request after the restart goes without it, with no 400 paid again', async () => {
    expect(await codexTurn(await start())).toBe(200);
    expect(sentEfforts()).toEqual(['high', undefined]);

    const restarted = await start();
    expect(restarted.notices.join(' ')).not.toContain(FILE_NAME);
    expect(await codexTurn(restarted)).toBe(200);
    expect(sentEfforts()).toEqual(['high', undefined, undefined]);
    // Per level, as while running: another level is still tried.
    expect(await codexTurn(restarted, 'low')).toBe(200);
    expect(sentEfforts()).toEqual(['high', undefined, undefined, 'low', undefined]);
  });
});

describe('a refusals file Airlock cannot read', () => {
  it.each([
    ['damaged', '{"version": 1, "refusals": [', /damaged/],
    ['foreign', JSON.stringify({ version: 7, refused: { [MODEL]: 'all' } }), /not one this Airlock writes/],
  ])('%s: is kept aside as it was, loses nothing else, and says so', async (_kind, text, wording) => {
    const capabilities = {
      version: 1,
      profiles: { main: { [MODEL]: [{ capability: 'tools', supported: true, checkedAtMs: 1_700_000_000_000 }] } },
    };
    writeFileSync(path.join(dataDir, 'capabilities.json'), JSON.stringify(capabilities));
    writeFileSync(path.join(dataDir, FILE_NAME), text);

    const airlock = await start();
    const notice = airlock.notices.find((line) => line.includes(FILE_NAME));
    expect(notice).toMatch(wording);
    expect(Object.values(setAside())).toEqual([text]);
    expect(notice).toContain(Object.keys(setAside())[0]);
    // The capability results beside it are read as before.
    expect(airlock.capabilities.badges('main', MODEL)).toEqual(capabilities.profiles.main[MODEL]);

    // Refusals are learned again, and kept in a new file.
    expect(await codexTurn(airlock)).toBe(200);
    expect(sentEfforts()).toEqual(['high', undefined]);
    expect(await codexTurn(await start())).toBe(200);
    expect(sentEfforts()).toEqual(['high', undefined, undefined]);
  });

  it('with one entry damaged: keeps the others, keeps the file as it was aside, and says how many it left out', async () => {
    const airlock = await start();
    const baseUrl = baseUrlOf(airlock);
    const text = JSON.stringify({
      version: 1,
      refusals: [
        { profileId: 'main', baseUrl, model: MODEL, levels: ['high'] },
        { profileId: 'main', baseUrl, model: 42, levels: 'all' },
      ],
    });
    await airlock.stop();
    running = null;
    writeFileSync(path.join(dataDir, FILE_NAME), text);

    const restarted = await start();
    expect(restarted.notices.find((line) => line.includes(FILE_NAME))).toMatch(/1 of its 2 entries/);
    expect(Object.values(setAside())).toEqual([text]);
    expect(await codexTurn(restarted)).toBe(200);
    expect(sentEfforts()).toEqual([undefined]);
  });
});
