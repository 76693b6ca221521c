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
 * The same after a run Airlock's idle timeout ended, which has no status on its hop.
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
  const timeouts = { connectTimeoutMs: 5000, idleTimeoutMs: 1000, totalTimeoutMs: 30_000 };
  const fallbacks = [{ profileId: 'backup' }];
  await call('/profiles/main', send('PUT', { retry: { maxRetries: 0, maxRetryAfterMs: 8000 }, fallbacks, timeouts }));
  await call('/profiles/main/activate', send('POST', {}));
  token = (await call<TokenSecretResponse>('/tokens', send('POST', { name: 'agent' }))).token;
});
afterAll(async () => {
  await harness?.close();
  await backup?.close();
});

/** What each profile and the client have spent today: running, seeded afresh from the log, and on the Spend screen. */
type Spent = { running: number; seeded: number; screen: number };
async function spentToday(): Promise<Record<'main' | 'backup' | 'agent', Spent>> {
  const nowMs = Date.now();
  const restarted = new SpendLedger();
  restarted.seed([MAIN, BACKUP, AGENT], spentSinceFromLog(harness.log.spendSince), nowMs);
  const spend = await call<{ perProfile: { key: string; costCredits: number }[] }>('/spend?range=today');
  const screen = Object.fromEntries(spend.perProfile.map((group) => [group.key, group.costCredits]));
  const of = (scope: SpendScope, key: string): Spent => ({
    running: harness.spendGate.ledger.totals(scope, nowMs).dayCredits,
    seeded: restarted.totals(scope, nowMs).dayCredits,
    screen: screen[key] ?? 0,
  });
  return { main: of(MAIN, 'main'), backup: of(BACKUP, 'backup'), agent: { ...of(AGENT, 'agent'), screen: 0 } };
}

// Held until the tests end: only Airlock's idle timeout ends a run on it, however slow the machine.
const neverAnswered = Promise.withResolvers<void>();
afterAll(() => neverAnswered.resolve());

describe("a fallback after a run the gateway may bill: each profile's spend is its own", () => {
  it.each([
    { left: 'a gateway 504', fault: { kind: 'status' as const, status: 504 }, leftStatus: 504 },
    // The hop of a run that got no status carried no cost: the running ledger charged 'main', the log (a restart, the Spend screen) 'backup'.
    {
      left: "Airlock's idle timeout before any byte",
      fault: { kind: 'holdHeaders' as const, until: neverAnswered.promise },
      leftStatus: null,
    },
  ])('after $left: in the running ledger and in what a restart seeds from the log, the row unchanged', async ({ fault, leftStatus }) => {
    const before = await spentToday();
    harness.simulator.script(fault);
    const body = chatBody({ messages: [{ role: 'user', content: 'Tell me how tides are predicted. '.repeat(200) }] });
    const headers = { ...JSON_HEADERS, authorization: `Bearer ${token}`, 'idempotency-key': `tides-${String(leftStatus)}` };
    const response = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, { method: 'POST', headers, body });
    expect(response.status, response.body).toBe(200);
    const { row } = await harness.loggedDetail(response);

    // The row: the answering profile and the whole cost, as the user always saw it.
    expect(row.profileId).toBe('backup');
    const answeredCredits = ((row.inputTokens ?? 0) * 1000 + (row.outputTokens ?? 0) * 1000) / 1e6;
    const mainRunCredits = (row.costCredits ?? 0) - answeredCredits;
    expect(mainRunCredits).toBeGreaterThan(0.5);
    expect(row.fallbackChain?.[0]).toMatchObject({ profileId: 'main', status: leftStatus });
    expect(row.fallbackChain?.[0]?.costCredits).toBeCloseTo(mainRunCredits, 9);
    expect(row.fallbackChain?.[1]?.costCredits).toBeUndefined();

    const after = await spentToday();
    const grew = (who: 'main' | 'backup' | 'agent', how: 'running' | 'seeded' | 'screen'): number => after[who][how] - before[who][how];
    for (const how of ['running', 'seeded', 'screen'] as const) {
      expect(grew('main', how), `main ${how}`).toBeCloseTo(mainRunCredits, 9);
      expect(grew('backup', how), `backup ${how}`).toBeCloseTo(answeredCredits, 9);
    }
    expect(grew('agent', 'running')).toBeCloseTo(row.costCredits ?? 0, 9);
    expect(grew('agent', 'seeded')).toBeCloseTo(row.costCredits ?? 0, 9);
  });
});
