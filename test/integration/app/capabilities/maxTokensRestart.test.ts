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
 * A gateway's refusal of chat's `max_tokens` for a model (forward/maxTokensRefusals.ts) is kept in
 * the data directory as the reasoning_effort refusals are, so a restart does not pay that 400 again
 * for every model. OpenAI refuses it for its reasoning models (test/simulator/dialects.ts cites it).
 */
const MODEL = 'gpt-5.1';
const FILE_NAME = 'max-tokens-refusals.json';
const token = generateToken();

let simulator: GatewaySimulator;
let dataDir: string;
let running: Airlock | null = null;

beforeAll(async () => {
  simulator = await startGatewaySimulator({
    dialect: DIALECTS.openai,
    models: [MODEL],
    modelCapabilities: { [MODEL]: { maxTokens: false } },
  });
});
afterAll(async () => {
  await simulator.close();
});
beforeEach(async () => {
  simulator.reset();
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-max-tokens-'));
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

/** A Codex turn with an output bound, not streamed; its status. */
async function codexTurn(airlock: Airlock): Promise<number> {
  const body = JSON.stringify({ model: MODEL, input: 'Say hi.', max_output_tokens: 2000, store: false });
  const answer = await rawRequest(`${airlock.proxy.url}/v1/responses`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
    body,
  });
  return answer.status;
}

/** The name the output bound went under in each chat request the gateway got, in order. */
function sentBoundNames(): string[] {
  return simulator.received
    .filter((request) => request.path === '/v1/chat/completions')
    .map((request) => Object.keys(JSON.parse(request.body.toString('utf8')) as Record<string, unknown>)[0]!);
}

describe('a refusal of max_tokens learned before a restart', () => {
  it('is remembered: the first request after the restart goes with max_completion_tokens, with no 400 paid again', async () => {
    expect(await codexTurn(await start())).toBe(200);
    expect(sentBoundNames()).toEqual(['max_tokens', 'max_completion_tokens']);
    expect(readFileSync(path.join(dataDir, FILE_NAME), 'utf8')).not.toContain(SENTINEL_KEY);

    const restarted = await start();
    expect(restarted.notices.join(' ')).not.toContain(FILE_NAME);
    expect(await codexTurn(restarted)).toBe(200);
    expect(sentBoundNames()).toEqual(['max_tokens', 'max_completion_tokens', 'max_completion_tokens']);
  });
});

describe('a refusals file Airlock cannot read', () => {
  it('is kept aside as it was, says so, and refusals are learned again', async () => {
    const text = '{"version": 1, "refusals": [';
    writeFileSync(path.join(dataDir, FILE_NAME), text);

    const airlock = await start();
    expect(airlock.notices.find((line) => line.includes(FILE_NAME))).toMatch(/damaged/);
    const aside = readdirSync(dataDir).filter((name) => name.startsWith('max-tokens-refusals') && name !== FILE_NAME);
    expect(aside.map((name) => readFileSync(path.join(dataDir, name), 'utf8'))).toEqual([text]);

    expect(await codexTurn(airlock)).toBe(200);
    expect(await codexTurn(await start())).toBe(200);
    expect(sentBoundNames()).toEqual(['max_tokens', 'max_completion_tokens', 'max_completion_tokens']);
  });
});
