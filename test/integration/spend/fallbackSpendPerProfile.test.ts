import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TokenSecretResponse } from '../../../proxy/contracts/clientTokens.ts';
import { SpendLedger, spentSinceFromLog, type SpendScope } from '../../../proxy/spend/spendLedger.ts';
import { startGatewaySimulator, type GatewaySimulator } from '../../simulator/index.ts';
import { startControlHarness, type ControlHarness } from '../../support/controlHarness.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';

/**
 * A keyed request whose run on 'main' ended in a 504 (the gateway may bill its input) and that
 * 'backup' then answered: the row shows the whole cost, as before, but each profile's caps, in
 * memory and as a restart seeds them from the log, count only that profile's part. Before, the
 * whole cost went to 'backup', and 'main' forgot its run once the request ended.
 */
const BACKUP_KEY = 'sk-airlock-BACKUP-SENTINEL-4c1e8a7b2d9f03e6a5b8c7d1';
const PRICES = [{ model: 'gpt-4o-mini', inputPer1M: 1000, outputPer1M: 1000 }];
const MAIN: SpendScope = { kind: 'profile', profileId: 'main' };
const BACKUP: SpendScope = { kind: 'profile', profileId: 'backup' };
const AGENT: SpendScope = { kind: 'client', clientName: 'agent' };

let harness: ControlHarness;
let backup: GatewaySimulator;
let token: string;
const call = <T>(pathAndQuery: string, init: RequestInit = {}): Promise<T> => harness.json<T>(pathAndQuery, init);
const send = (method: string, body: unknown): RequestInit => ({ method, body: JSON.stringify(body) });

beforeAll(async () => {
  harness = await startControlHarness();
  backup = await startGatewaySimulator({ validKeys: [BACKUP_KEY] });
  const budget = { dailyCredits: 1000 };
  await call('/profiles', send('POST', { id: 'main', name: 'Main', baseUrl: harness.simulator.baseUrl, prices: PRICES, budget }));
  await call('/profiles/main/key', send('PUT', { key: SENTINEL_KEY }));
  await call('/profiles', send('POST', { id: 'backup', name: 'Backup', baseUrl: backup.baseUrl, prices: PRICES, budget }));
  await call('/profiles/backup/key', send('PUT', { key: BACKUP_KEY }));
  await call('/profiles/main', send('PUT', { retry: { maxRetries: 0, maxRetryAfterMs: 8000 }, fallbacks: [{ profileId: 'backup' }] }));
  await call('/profiles/main/activate', send('POST', {}));
  token = (await call<TokenSecretResponse>('/tokens', send('POST', { name: 'agent' }))).token;
});
afterAll(async () => {
  await harness?.close();
  await backup?.close();
});

describe("a fallback after a run the gateway may bill: each profile's spend is its own", () => {
  it('in the running ledger and in what a restart seeds from the log, the row unchanged', async () => {
    harness.simulator.script({ kind: 'status', status: 504 });
    const body = chatBody({ messages: [{ role: 'user', content: 'Tell me how tides are predicted. '.repeat(200) }] });
    const headers = { ...JSON_HEADERS, authorization: `Bearer ${token}`, 'idempotency-key': 'tides-1' };
    const response = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, { method: 'POST', headers, body });
    expect(response.status, response.body).toBe(200);
    const { row } = await harness.loggedDetail(response);

    // The row: the answering profile and the whole cost, as the user always saw it.
    expect(row.profileId).toBe('backup');
    const answeredCredits = ((row.inputTokens ?? 0) * 1000 + (row.outputTokens ?? 0) * 1000) / 1e6;
    const mainRunCredits = (row.costCredits ?? 0) - answeredCredits;
    expect(mainRunCredits).toBeGreaterThan(0.5);
    expect(row.fallbackChain?.[0]).toMatchObject({ profileId: 'main', status: 504 });
    expect(row.fallbackChain?.[0]?.costCredits).toBeCloseTo(mainRunCredits, 9);
    expect(row.fallbackChain?.[1]?.costCredits).toBeUndefined();

    const nowMs = Date.now();
    const running = harness.spendGate.ledger;
    const restarted = new SpendLedger();
    restarted.seed([MAIN, BACKUP, AGENT], spentSinceFromLog(harness.log.spendSince), nowMs);
    for (const ledger of [running, restarted]) {
      expect(ledger.totals(MAIN, nowMs).dayCredits).toBeCloseTo(mainRunCredits, 9);
      expect(ledger.totals(BACKUP, nowMs).dayCredits).toBeCloseTo(answeredCredits, 9);
      expect(ledger.totals(AGENT, nowMs).dayCredits).toBeCloseTo(row.costCredits ?? 0, 9);
    }
    // The Spend screen's per-profile sums: 'main' its run, with no request of its own; 'backup' the rest.
    const spend = await call<{ perProfile: { key: string; requests: number; costCredits: number }[] }>('/spend?range=today');
    const perProfile = Object.fromEntries(spend.perProfile.map((group) => [group.key, group]));
    expect(perProfile['main']).toMatchObject({ requests: 0 });
    expect(perProfile['main']?.costCredits).toBeCloseTo(mainRunCredits, 9);
    expect(perProfile['backup']).toMatchObject({ requests: 1 });
    expect(perProfile['backup']?.costCredits).toBeCloseTo(answeredCredits, 9);
  });
});
