import { describe, expect, it } from 'vitest';
import type { LogTotals, RequestLogRow, SpendByDayRow } from '../../../proxy/contracts/log.ts';
import { rowFromStart } from '../../../proxy/store/write/rowDraft.ts';
import { addRow, spendByDayWith, spendSinceWith, totalsWith, type SpendEntry } from '../../../proxy/store/write/unwrittenSpend.ts';
import { startEvent } from '../../support/lifecycleEvents.ts';

const local = (day: number, hour = 12): number => new Date(2026, 2, day, hour).getTime();

function row(overrides: Partial<RequestLogRow>): RequestLogRow {
  return {
    ...rowFromStart(startEvent('r', { startedAtMs: local(15) })),
    state: 'done',
    status: 200,
    usageSource: 'reported',
    ...overrides,
  };
}

function entriesOf(rows: RequestLogRow[]): SpendEntry[] {
  const entries = new Map<string, SpendEntry>();
  for (const each of rows) addRow(entries, each);
  return [...entries.values()];
}

const ZERO: LogTotals = {
  requests: 0,
  errors: 0,
  costCredits: 0,
  unpricedRequests: 0,
  inputTokens: 0,
  outputTokens: 0,
  cachedInputTokens: 0,
  reasoningTokens: 0,
};

describe('addRow', () => {
  it('groups by local day, profile, client and model, counting as the log does', () => {
    const entries = entriesOf([
      row({ id: 'a', costCredits: 0.5, inputTokens: 10, outputTokens: 2 }),
      row({ id: 'b', costCredits: 0.25, startedAtMs: local(15, 23), errorClass: 'stream_interrupted' }),
      row({ id: 'c', costCredits: null, startedAtMs: local(15, 1) }),
      row({ id: 'd', costCredits: 1, startedAtMs: local(16, 0) }),
      row({ id: 'e', costCredits: 2, upstreamModel: null, requestedModel: 'asked' }),
    ]);
    expect(entries).toEqual([
      expect.objectContaining({
        dayStartMs: local(15, 0),
        model: 'gpt-4o',
        requests: 3,
        errors: 1,
        costCredits: 0.75,
        unpricedRequests: 1,
        inputTokens: 10,
        outputTokens: 2,
      }),
      expect.objectContaining({ dayStartMs: local(16, 0), model: 'gpt-4o', requests: 1, costCredits: 1 }),
      expect.objectContaining({ dayStartMs: local(15, 0), model: 'asked', requests: 1, costCredits: 2 }),
    ]);
  });

  it('takes away an earlier version counted in the database, leaving only the difference', () => {
    const entries = new Map<string, SpendEntry>();
    addRow(entries, row({ id: 'a', costCredits: 0.75, outputTokens: 30 }));
    addRow(entries, row({ id: 'a', costCredits: 0.25, outputTokens: 10, state: 'in_flight' }), -1);
    expect([...entries.values()]).toEqual([expect.objectContaining({ requests: 0, costCredits: 0.5, outputTokens: 20 })]);
  });
});

describe('totals with what the database could not take', () => {
  const entries = entriesOf([
    row({ id: 'a', costCredits: 0.5, profileId: 'work', clientName: 'codex' }),
    row({ id: 'b', costCredits: 0.25, profileId: 'home', clientName: 'aider', startedAtMs: local(14) }),
  ]);

  it.each([
    { name: 'today', query: { sinceMs: local(15, 0) }, credits: 1.5 },
    { name: 'a day that starts mid-day counts that day whole', query: { sinceMs: local(15, 9) }, credits: 1.5 },
    { name: 'since yesterday', query: { sinceMs: local(14, 0) }, credits: 1.75 },
    { name: 'one profile', query: { sinceMs: local(1, 0), profileId: 'home' }, credits: 1.25 },
    { name: 'one client', query: { sinceMs: local(1, 0), clientName: 'codex' }, credits: 1.5 },
    { name: 'tomorrow', query: { sinceMs: local(16, 0) }, credits: 1 },
  ])('spendSince: $name', ({ query, credits }) => {
    expect(spendSinceWith(1, entries, query)).toBe(credits);
  });

  it.each([
    { name: 'the range holding both', query: { fromMs: local(14, 0), toMs: local(16, 0) }, requests: 2, credits: 0.75 },
    { name: 'today only', query: { fromMs: local(15, 0), toMs: local(15, 13) }, requests: 1, credits: 0.5 },
    { name: 'a range that ended before', query: { fromMs: local(10, 0), toMs: local(14, 0) }, requests: 0, credits: 0 },
    { name: 'a profile', query: { fromMs: local(1, 0), toMs: local(20, 0), profileId: 'home' }, requests: 1, credits: 0.25 },
  ])('totals: $name', ({ query, requests, credits }) => {
    expect(totalsWith(ZERO, entries, query)).toMatchObject({ requests, costCredits: credits });
  });

  it('spendByDay merges into the day and group rows, adding new ones in order', () => {
    const fromDatabase: SpendByDayRow[] = [
      {
        day: '2026-03-15',
        group: 'codex',
        requests: 4,
        costCredits: 2,
        unpricedRequests: 0,
        inputTokens: 0,
        outputTokens: 0,
        gatewayCost: 0.3,
        gatewayCostProfiles: ['home'],
        unstatedRequests: 1,
      },
    ];
    const rows = spendByDayWith(fromDatabase, entries, { fromMs: local(1, 0), toMs: local(20, 0), groupBy: 'client' });
    // Whether the gateway stated a charge for a row not in the log is unknown: counted as without one, the sum kept.
    expect(rows).toMatchObject([
      { day: '2026-03-14', group: 'aider', requests: 1, costCredits: 0.25, gatewayCost: null, unstatedRequests: 1 },
      { day: '2026-03-15', group: 'codex', requests: 5, costCredits: 2.5, gatewayCost: 0.3, unstatedRequests: 2 },
    ]);
    expect(fromDatabase[0]?.requests).toBe(4);
  });
});

describe("the gateway's stated charge of requests kept only as spend", () => {
  it('is kept with its profile, and only answered requests without one count as missing it', () => {
    const entries = entriesOf([
      row({ id: 'stated', profileId: 'work', costCredits: 0.5, gatewayCost: 0.01 }),
      row({ id: 'silent', profileId: 'work', costCredits: 0.5 }),
      // Neither reached a model: nothing to state, as the log's own query counts them.
      row({ id: 'failed', profileId: 'work', status: 502, errorClass: 'upstream_error', usageSource: null }),
      row({ id: 'refused', profileId: 'work', status: 402, errorClass: 'budget_exceeded', usageSource: null }),
    ]);
    const [day] = spendByDayWith([], entries, { fromMs: local(1, 0), toMs: local(20, 0), groupBy: null });
    expect(day).toMatchObject({ requests: 4, gatewayCost: 0.01, gatewayCostProfiles: ['work'], unstatedRequests: 1 });
  });
});

describe('a fallback row the database has not taken (folded while the log is behind, or a full disk)', () => {
  // Its chain carries what 'main' may bill for the runs it left (FallbackHop.costCredits): as the
  // database's sums do, the caps' seeding and the Spend screen count it for 'main', not 'backup'.
  const fellBack = row({
    profileId: 'backup',
    clientName: 'agent',
    costCredits: 3,
    fallbackChain: [
      { profileId: 'main', model: 'gpt-4o', status: 504, errorClass: 'upstream_error', costCredits: 1 },
      { profileId: 'backup', model: 'gpt-4o', status: 200, errorClass: null },
    ],
  });
  const since = local(1, 0);

  it("counts the left runs for their profile, the rest for the answering one's, the client the whole", () => {
    const entries = entriesOf([fellBack]);
    expect(spendSinceWith(0, entries, { sinceMs: since, profileId: 'main' })).toBeCloseTo(1, 9);
    expect(spendSinceWith(0, entries, { sinceMs: since, profileId: 'backup' })).toBeCloseTo(2, 9);
    expect(spendSinceWith(0, entries, { sinceMs: since, clientName: 'agent' })).toBeCloseTo(3, 9);
    const perProfile = spendByDayWith([], entries, { fromMs: since, toMs: local(20, 0), groupBy: 'profile' });
    expect(perProfile.map(({ group, requests, costCredits }) => ({ group, requests, costCredits }))).toEqual([
      { group: 'backup', requests: 1, costCredits: 2 },
      { group: 'main', requests: 0, costCredits: 1 },
    ]);
  });

  it('taken away again once written, leaves nothing behind', () => {
    const entries = new Map<string, SpendEntry>();
    addRow(entries, fellBack);
    addRow(entries, fellBack, -1);
    expect([...entries.values()].every((entry) => entry.costCredits === 0 && entry.requests === 0)).toBe(true);
  });
});
