import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TokenSecretResponse } from '../../../../proxy/contracts/clientTokens.ts';
import type { RequestLogRow } from '../../../../proxy/contracts/log.ts';
import type { ReplayResponse } from '../../../../proxy/contracts/replay.ts';
import type { HarLog } from '../../../../proxy/app/export/har.ts';
import { startGatewaySimulator, type GatewaySimulator } from '../../../simulator/index.ts';
import { runAirlock } from '../../../support/cliHarness.ts';
import { CONTROL_TOKEN, startControlHarness, type ControlHarness } from '../../../support/controlHarness.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../../support/http.ts';
import { findSentinel, SECOND_SENTINEL_KEY, SENTINEL_KEY } from '../../../support/sentinel.ts';

/**
 * Issue 22: "the log and the window show the chain a request took", and so do the exports and
 * `airlock request`. Through the real proxy: a request on a pooled profile whose first key gets a 429
 * and whose second gets a 503 falls back to another profile; then it is replayed.
 */
const BACKUP_KEY = 'sk-airlock-BACKUP-SENTINEL-5e0b7c3a9d1f48e2b6a4c8d0';
const SESSION_ID = 'export-chain-session-1';

let harness: ControlHarness;
let backup: GatewaySimulator;
let token = '';
let fellBack: RequestLogRow;
let replay: RequestLogRow;

const call = <T>(pathAndQuery: string, method: string, body: unknown): Promise<T> =>
  harness.json<T>(pathAndQuery, { method, body: JSON.stringify(body) });

/** The row once its request ended: the end event may reach the log just after the client's last byte (bounded, each pass waits for the log). */
async function endedRow(id: string): Promise<RequestLogRow> {
  for (let pass = 0; pass < 200; pass++) {
    await harness.log.flush();
    const row = harness.log.getRequest(id)?.row;
    if (row?.state === 'done') return row;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`request ${id} did not end in the log`);
}

/** No key of either gateway, no client token, no control token. */
function expectNoCredential(text: string): void {
  for (const key of [SENTINEL_KEY, SECOND_SENTINEL_KEY, BACKUP_KEY]) expect(findSentinel(text, key)).toBeNull();
  expect(text).not.toContain(token);
  expect(text).not.toContain(CONTROL_TOKEN);
}

beforeAll(async () => {
  harness = await startControlHarness({ simulator: { validKeys: [SENTINEL_KEY, SECOND_SENTINEL_KEY] } });
  backup = await startGatewaySimulator({ validKeys: [BACKUP_KEY] });
  await call('/profiles', 'POST', { id: 'main', name: 'Main', baseUrl: harness.simulator.baseUrl });
  await call('/profiles/main/key', 'PUT', { key: SENTINEL_KEY });
  await call('/profiles/main/keys', 'POST', { key: SECOND_SENTINEL_KEY, label: 'spare' });
  await call('/profiles', 'POST', { id: 'backup', name: 'Backup', baseUrl: backup.baseUrl, modelAliases: { 'gpt-4o-mini': 'qwen-plus' } });
  await call('/profiles/backup/key', 'PUT', { key: BACKUP_KEY });
  await call('/profiles/main', 'PUT', { retry: { maxRetries: 0, maxRetryAfterMs: 1000 }, fallbacks: [{ profileId: 'backup' }] });
  await call('/profiles/main/activate', 'POST', {});
  token = (await call<TokenSecretResponse>('/tokens', 'POST', { name: 'agent' })).token;

  // The first key's 429 moves the request to the pool's other key; that one's 503 falls back to the backup profile.
  harness.simulator.script({ kind: 'status', status: 429, retryAfterS: 60 }, { kind: 'status', status: 503 });
  const response = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${token}`, 'x-claude-code-session-id': SESSION_ID },
    body: chatBody(),
  });
  expect(response.status, response.body).toBe(200);
  expect(response.headers['x-airlock-answered-by']).toBe('backup/qwen-plus');
  fellBack = await endedRow(String(response.headers['x-airlock-request-id']));
  const replayed = await call<ReplayResponse>(`/requests/${fellBack.id}/replay`, 'POST', {});
  replay = await endedRow(replayed.replayId);
});
afterAll(async () => {
  await harness?.close();
  await backup?.close();
});

const CHAIN_CELL = 'main/gpt-4o-mini 503 upstream_error > backup/qwen-plus 200';

describe('the logged way the request took', () => {
  it('is what the exports are checked against', () => {
    expect(fellBack.fallbackChain).toEqual([
      { profileId: 'main', model: 'gpt-4o-mini', status: 503, errorClass: 'upstream_error' },
      { profileId: 'backup', model: 'qwen-plus', status: 200, errorClass: null },
    ]);
    expect(fellBack.gatewayKeys?.map((use) => use.label)).toEqual(['key 1', 'spare']);
    expect(fellBack.agentSessionId).toBe(SESSION_ID);
    expect(replay.replayOf).toBe(fellBack.id);
  });
});

describe('exports', () => {
  it('HAR from the control API: _airlock holds the chain, the keys by label, the session and the replay link', async () => {
    const response = await harness.api('/export/requests?format=har');
    const text = await response.text();
    const entries = (JSON.parse(text) as HarLog).log.entries;
    const original = entries.find((entry) => entry._airlock.id === fellBack.id)?._airlock;
    expect(original).toMatchObject({
      fallbackChain: fellBack.fallbackChain,
      gatewayKeys: fellBack.gatewayKeys,
      agentSessionId: SESSION_ID,
      replayOf: null,
      profileId: 'backup',
      upstreamModel: 'qwen-plus',
    });
    expect(entries.find((entry) => entry._airlock.id === replay.id)?._airlock).toMatchObject({
      replayOf: fellBack.id,
      fallbackChain: null,
    });
    expectNoCredential(text);
  });

  it('CSV from `airlock export`: the chain and the keys each in one readable cell', async () => {
    const run = await runAirlock(harness.dataDir, harness.secrets, ['export', 'requests', '--format', 'csv', '--since', '2023-01-01']);
    expect(run.exitCode, run.stderr).toBe(0);
    const records = parse(run.stdout, { columns: true }) as Record<string, string>[];
    expect(records.find((record) => record.id === fellBack.id)).toMatchObject({
      fallback_chain: CHAIN_CELL,
      gateway_keys: fellBack.gatewayKeys?.map((use) => `${use.label} (${use.keyId})`).join(' > '),
      agent_session: SESSION_ID,
      replay_of: '',
    });
    expect(records.find((record) => record.id === replay.id)).toMatchObject({ replay_of: fellBack.id, fallback_chain: '' });
    expectNoCredential(run.stdout);
  });
});

describe('airlock request <id>, reading the log beside the running Airlock', () => {
  it('shows status, models, profile, cost, each fallback step, the keys and the replays', async () => {
    const run = await runAirlock(harness.dataDir, harness.secrets, ['request', fellBack.id]);
    expect(run.exitCode, run.stderr).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toMatch(new RegExp(`^${fellBack.id}  .* UTC  POST /v1/chat/completions$`));
    expect(lines).toEqual(
      expect.arrayContaining([
        'Status:     200',
        'Model:      gpt-4o-mini → qwen-plus',
        'Profile:    backup',
        'Fallback:',
        '  1. main/gpt-4o-mini 503 upstream_error',
        '  2. backup/qwen-plus 200',
        `Keys:       key 1 (main) > spare (${fellBack.gatewayKeys?.[1]?.keyId})`,
        `Session:    ${SESSION_ID} (npx airlock sessions ${SESSION_ID} --data-dir ${harness.dataDir})`,
        `Replays:    ${replay.id}`,
      ]),
    );
    expect(lines.some((line) => /^Duration: {3}\d/.test(line))).toBe(true);
    expect(lines.some((line) => /^Cost: {7}(\d|unpriced)/.test(line))).toBe(true);
    expectNoCredential(run.stdout);
  });

  it('a replay links back to its original', async () => {
    const run = await runAirlock(harness.dataDir, harness.secrets, ['request', replay.id]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain(`Replay of:  ${fellBack.id} (npx airlock request ${fellBack.id} --data-dir ${harness.dataDir})`);
    expect(run.stdout).not.toContain('Fallback:');
  });

  it('--json gives the logged row with its replays', async () => {
    const run = await runAirlock(harness.dataDir, harness.secrets, ['request', fellBack.id, '--json']);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      id: fellBack.id,
      status: 200,
      fallbackChain: fellBack.fallbackChain,
      gatewayKeys: fellBack.gatewayKeys,
      replayIds: [replay.id],
    });
    expectNoCredential(run.stdout);
  });

  it('export --text longer than a search takes fails with the limit and the fix, not an SQLite error', async () => {
    // Each character outside ASCII is searched as \uXXXX too: 10 000 of them make a LIKE pattern past SQLite's 50 000 bytes.
    const run = await runAirlock(harness.dataDir, harness.secrets, [
      'export',
      'requests',
      '--format',
      'csv',
      '--text',
      '提示'.repeat(5_000),
    ]);
    // A value on the command line the command cannot use is a usage error (README: exit 2).
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/--text: Search for at most 500 characters/);
  });

  it('an unknown id fails with the cause and where to find ids', async () => {
    const run = await runAirlock(harness.dataDir, harness.secrets, ['request', 'alk_0_nope']);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(
      `no request alk_0_nope in the log: \`npx airlock export requests --format csv --data-dir ${harness.dataDir}\` lists the ids`,
    );
  });
});
