import { describe, expect, it } from 'vitest';
import { composeAppState, portFromEnv } from '../../../electron/logic/composeState.ts';
import { emptyTrafficState } from '../../../electron/logic/trafficState.ts';

describe('composeAppState', () => {
  it('takes profiles and settings from the config and alarms from traffic', () => {
    const proxy = { status: 'serving' as const, port: 8642, origin: 'http://127.0.0.1:8642' };
    const config = {
      activeProfileId: 'a',
      profiles: [{ id: 'a', name: 'A', baseUrl: 'https://x.example/v1' }],
      clientTokens: [{ name: 't' }],
      settings: { notifications: false, startAtLogin: true },
    };
    const traffic = { ...emptyTrafficState(0), todaySpendCredits: 2, keyRejectedProfileIds: ['a'], budgetReachedProfileIds: ['a'] };
    const connectTools = [{ id: 'codex' as const, title: 'Codex CLI', detected: true, connected: false, canUndo: false, problem: false }];
    const budgets = [
      {
        scope: 'profile' as const,
        subject: 'a',
        period: 'daily' as const,
        capCredits: 10,
        spentCredits: 8,
        reached: false,
        alertPercent: 80 as const,
      },
      {
        scope: 'client' as const,
        subject: 't',
        period: 'monthly' as const,
        capCredits: 10,
        spentCredits: 1,
        reached: false,
        alertPercent: null,
      },
    ];
    const pausedClients = [{ name: 't', reason: '40 requests in 10 s' }];
    expect(composeAppState(proxy, config, traffic, connectTools, budgets, pausedClients)).toEqual({
      proxy,
      profiles: [{ id: 'a', name: 'A' }],
      activeProfileId: 'a',
      todaySpendCredits: 2,
      keyRejectedProfileIds: ['a'],
      quotaExhaustedProfileIds: [],
      budgetReachedProfileIds: ['a'],
      pausedClients,
      hasClientToken: true,
      startAtLogin: true,
      notificationsEnabled: false,
      connectTools,
      budgetAlerts: [{ scope: 'profile', subject: 'a', period: 'daily', percent: 80, spentCredits: 8, capCredits: 10 }],
    });
  });
});

describe('portFromEnv', () => {
  it.each([
    [undefined, 8642],
    ['', 8642],
    ['0', 0],
    ['9000', 9000],
  ])('%j -> %i', (value, expected) => {
    expect(portFromEnv(value, 8642)).toBe(expected);
  });

  it.each(['-1', '65536', '80.5', 'http'])('refuses %j', (value) => {
    expect(() => portFromEnv(value, 8642)).toThrow(/AIRLOCK_PORT/);
  });
});
