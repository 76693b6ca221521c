import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestDetail } from '../../../../proxy/contracts/requests.ts';
import type { ReplayResponse } from '../../../../proxy/contracts/replay.ts';
import { generateToken, tokenRecord } from '../../../../proxy/http/clientTokens.ts';
import { addClientToken, addProfile } from '../../../../proxy/app/profiles/configMutations.ts';
import { openConfigStore } from '../../../../proxy/app/profiles/configStore.ts';
import { startAirlock, type Airlock } from '../../../../proxy/app/startAirlock.ts';
import { CONTROL_TOKEN_ACCOUNT, gatewayKeyAccount } from '../../../../proxy/contracts/secretStore.ts';
import { startGatewaySimulator, type GatewaySimulator } from '../../../simulator/index.ts';
import { JSON_HEADERS, rawRequest } from '../../../support/http.ts';
import { findSentinel, SENTINEL_KEY } from '../../../support/sentinel.ts';
import { runAirlock } from '../../../support/cliHarness.ts';
import { memorySecretStore } from '../../../support/memorySecretStore.ts';

let simulator: GatewaySimulator;
let airlock: Airlock;
let dataDir: string;
const secrets = memorySecretStore({
  [gatewayKeyAccount('main')]: SENTINEL_KEY,
  [CONTROL_TOKEN_ACCOUNT]: 'alkc_cli-replay-control-token-0123456789',
});
const token = generateToken();
let originalId = '';

beforeAll(async () => {
  simulator = await startGatewaySimulator();
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-replay-cli-'));
  const store = openConfigStore(dataDir);
  await store.update((config) => addProfile(config, { id: 'main', name: 'Main', baseUrl: simulator.baseUrl }, { activate: true }));
  await store.update((config) => addClientToken(config, tokenRecord('agent', token, null, Date.now())));
  store.close();
  airlock = await startAirlock({ dataDir, port: 0, env: {}, secrets });
  const reply = await rawRequest(`${airlock.proxy.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Name a fruit.' }] }),
  });
  originalId = String(reply.headers['x-airlock-request-id']);
  await airlock.log.flush();
});
afterAll(async () => {
  await airlock.stop();
  await simulator.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const port = () => String(airlock.proxy.port);

describe('airlock replay <id>', () => {
  it('resends the request through the running Airlock and prints both answers side by side', async () => {
    simulator.reset();
    const run = await runAirlock(dataDir, secrets, ['replay', originalId, '--port', port()]);
    expect(run.stderr).toBe('');
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^Replayed ${originalId} as alk_\\S+ through profile "main"\\.`));
    expect(run.stdout).toMatch(/status +200 +200/);
    expect(run.stdout).toMatch(/Answer \(replay\), the same:/);
    expect(simulator.received.filter((received) => received.path === '/v1/chat/completions' && received.authOk)).toHaveLength(1);
    expect(findSentinel(run.stdout)).toBeNull();
  });

  it('--edit sends the body as the editor left it, and --json prints the comparison', async () => {
    simulator.reset();
    const run = await runAirlock(dataDir, secrets, ['replay', originalId, '--edit', '--json', '--port', port()], '', '/nonexistent-home', {
      EDITOR: 'sed -i s/Name\\ a\\ fruit/Name\\ a\\ vegetable/',
    });
    expect(run.stderr).toBe('');
    const answer = JSON.parse(run.stdout) as ReplayResponse;
    expect(answer).toMatchObject({ replayOf: originalId, edited: true, replay: { status: 200 } });
    expect(simulator.received[0]?.body.toString('utf8')).toContain('Name a vegetable.');
    const detail = (await (
      await fetch(`${airlock.proxy.url}/_airlock/api/requests/${answer.replayId}`, {
        headers: { authorization: `Bearer ${await secrets.get(CONTROL_TOKEN_ACCOUNT)}` },
      })
    ).json()) as RequestDetail;
    expect(detail.replayOf).toBe(originalId);
  });

  it("--edit does not hand the editor the gateway key of the user's AIRLOCK_API_KEY", async () => {
    simulator.reset();
    // An editor that refuses to edit when it can read the key: `code --wait` hands its environment on to its terminals and extensions.
    const run = await runAirlock(dataDir, secrets, ['replay', originalId, '--edit', '--json', '--port', port()], '', '/nonexistent-home', {
      AIRLOCK_API_KEY: SENTINEL_KEY,
      EDITOR: 'test -z "$AIRLOCK_API_KEY" && sed -i s/Name\\ a\\ fruit/Name\\ a\\ nut/',
    });
    expect(run.stderr).toBe('');
    expect(simulator.received[0]?.body.toString('utf8')).toContain('Name a nut.');
  });

  it('says why a replay is refused and exits 1', async () => {
    const image = await rawRequest(`${airlock.proxy.url}/v1/images/generations`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
      body: JSON.stringify({ model: 'gpt-image-1', prompt: 'a cube' }),
    });
    await airlock.log.flush();
    const run = await runAirlock(dataDir, secrets, ['replay', String(image.headers['x-airlock-request-id']), '--port', port()]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(/^airlock: This creates a paid job.*--idempotency-key/);
    const unknown = await runAirlock(dataDir, secrets, ['replay', 'alk_nope', '--port', port()]);
    // Which id, and why it may be missing, as `airlock request` says it: a mistyped id is the usual cause.
    expect(unknown.stderr).toBe('airlock: Request alk_nope was not found in the log (a mistyped id, or retention removed it).\n');
  });
});
