import { describe, expect, it } from 'vitest';
import { budgetAlertPercent, budgetProgress } from '../../../../proxy/app/control/budgets.ts';
import type { ControlDeps } from '../../../../proxy/app/control/deps.ts';
import { buildStatus } from '../../../../proxy/app/control/status.ts';
import { configFileSchema, CONFIG_VERSION, type ConfigFile } from '../../../../proxy/contracts/config.ts';
import { startOfLocalDayMs } from '../../../../proxy/core/localPeriods.ts';
import { SpendLedger } from '../../../../proxy/spend/spendLedger.ts';

describe('budgetAlertPercent', () => {
  it.each([
    [0, 10, null],
    [4.99, 10, null],
    [5, 10, 50],
    [7.99, 10, 50],
    [8, 10, 80],
    [9.99, 10, 80],
    [10, 10, 100],
    [25, 10, 100],
    [0.3, 0.6, 50],
  ])('%d of %d credits -> %s', (spent, cap, expected) => {
    expect(budgetAlertPercent(spent, cap)).toBe(expected);
  });
});

const config: ConfigFile = configFileSchema.parse({
  version: CONFIG_VERSION,
  activeProfileId: 'main',
  profiles: [{ id: 'main', name: 'Main', baseUrl: 'https://gw.example.com/v1', budget: { dailyCredits: 10, monthlyCredits: 100 } }],
  clientTokens: [
    { name: 'codex', profileId: null, tokenSha256: 'a'.repeat(64), lastFour: 'abcd', createdAtMs: 0, budget: { dailyCredits: 2 } },
  ],
});

/** Spend as the log would report it: per profile or client, the same for any period start here. */
function spendSince(spent: { profile: number; client: number }) {
  return (query: { profileId?: string; clientName?: string }) => (query.clientName ? spent.client : spent.profile);
}

describe('budget alerts in the progress and the window status', () => {
  it('gives each cap its alert share', () => {
    const progress = budgetProgress(config, spendSince({ profile: 8.5, client: 1 }), Date.UTC(2026, 10, 26, 12));
    expect(progress.map((entry) => [entry.scope, entry.subject, entry.period, entry.alertPercent, entry.reached])).toEqual([
      ['profile', 'main', 'daily', 80, false],
      ['profile', 'main', 'monthly', null, false],
      ['client', 'codex', 'daily', 50, false],
    ]);
  });

  it('warns at 50% and 80%, and keeps the reached alarm at 100%', () => {
    const status = (spent: { profile: number; client: number }) =>
      buildStatus({
        deps: {
          config: { snapshot: () => config, problem: () => null },
          log: {
            spendSince: spendSince(spent),
            status: () => ({ reason: null, ledgerGap: null }),
          },
          keys: { keyStatus: () => ({ set: true, lastFour: 'wxyz' }), keychainProblem: () => null },
        } as unknown as ControlDeps,
        proxy: null,
        keyRejectedProfiles: [],
        nowMs: Date.UTC(2026, 10, 26, 12),
      }).alarms.map((alarm) => [alarm.kind, alarm.message]);

    expect(status({ profile: 4, client: 0 })).toEqual([]);
    expect(status({ profile: 8, client: 1 })).toEqual([
      ['budget_warning', 'Profile main has used 80% of its daily budget (8 of 10 credits today); at the cap its requests are refused.'],
      ['budget_warning', 'Client codex has used 50% of its daily budget (1 of 2 credits today); at the cap its requests are refused.'],
    ]);
    expect(status({ profile: 10, client: 0 }).map(([kind]) => kind)).toEqual(['budget_reached']);
  });
});

type SpendQuery = { sinceMs: number; profileId?: string; clientName?: string };
const STATUS_AT_MS = Date.UTC(2026, 10, 26, 12);

/** The status with the spend gate's ledger holding `ledgerCredits` spent by profile main for client codex, and this log. */
function statusWithLedger(ledgerCredits: number, spendSince: (query: SpendQuery) => number) {
  const ledger = new SpendLedger();
  ledger.record({ profileId: 'main', clientName: 'codex', costCredits: ledgerCredits, atMs: STATUS_AT_MS - 1000 });
  return buildStatus({
    deps: {
      config: { snapshot: () => config, problem: () => null },
      log: { spendSince, status: () => ({ reason: null, ledgerGap: null }) },
      keys: { keyStatus: () => ({ set: true, lastFour: 'wxyz' }), keychainProblem: () => null },
      spendGate: { ledger, pausedClients: () => [] },
    } as unknown as ControlDeps,
    proxy: null,
    keyRejectedProfiles: [],
    nowMs: STATUS_AT_MS,
  });
}

describe('the window status with the spend gate running', () => {
  it("reads the budgets from the ledger caps are enforced from, and only today's total from the log", () => {
    const logQueries: SpendQuery[] = [];
    // The ledger counted 8 credits as the request ended; the log has not written its row yet.
    const status = statusWithLedger(8, (query) => {
      logQueries.push(query);
      return 3;
    });
    // One read of the log a status, whatever the caps: each cap's read summed its whole period's rows.
    expect(logQueries).toEqual([{ sinceMs: startOfLocalDayMs(STATUS_AT_MS) }]);
    expect(status.todaySpend.credits).toBe(3);
    expect(status.alarms.map((alarm) => [alarm.kind, alarm.message])).toEqual([
      ['budget_warning', 'Profile main has used 80% of its daily budget (8 of 10 credits today); at the cap its requests are refused.'],
      [
        'budget_reached',
        'The daily budget of client codex (2 credits) is reached: its requests are refused until the period ends or the cap is raised.',
      ],
    ]);
  });
});

/** A log whose reads throw, with the ledger the spend gate enforces caps from. */
function statusWithUnreadableLog(readError: Error) {
  return statusWithLedger(10, () => {
    throw readError;
  });
}

describe('the window status while the request log cannot be read', () => {
  it('keeps the budget alarms, from the ledger caps are enforced from', () => {
    const status = statusWithUnreadableLog(Object.assign(new Error('database disk image is malformed'), { errcode: 11 }));
    expect(status.todaySpend.credits).toBe(10);
    const kinds = status.alarms.map((alarm) => [alarm.kind, alarm.message.match(/profile main|client codex/)?.[0] ?? null]);
    expect(kinds).toEqual(
      expect.arrayContaining([
        ['budget_reached', 'profile main'],
        ['budget_reached', 'client codex'],
      ]),
    );
    expect(status.alarms.find((alarm) => alarm.kind === 'log_degraded')?.message).toMatch(/malformed.*Restart Airlock.*damaged/);
  });

  it('says what failed, not that the log is damaged, for an error that is no damage', () => {
    const status = statusWithUnreadableLog(Object.assign(new Error('database is locked'), { errcode: 5 }));
    const message = status.alarms.find((alarm) => alarm.kind === 'log_degraded')?.message ?? '';
    expect(message).toContain('database is locked');
    expect(message).not.toMatch(/damaged|Restart Airlock/);
  });
});
