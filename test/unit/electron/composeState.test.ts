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
    const traffic = { ...emptyTrafficState(0), todaySpendCredits: 2, keyRejectedProfileIds: ['a'], budgetCapsReached: ['profile a'] };
    expect(composeAppState(proxy, config, traffic)).toEqual({
      proxy,
      profiles: [{ id: 'a', name: 'A' }],
      activeProfileId: 'a',
      todaySpendCredits: 2,
      keyRejectedProfileIds: ['a'],
      quotaExhaustedProfileIds: [],
      budgetCapsReached: ['profile a'],
      hasClientToken: true,
      startAtLogin: true,
      notificationsEnabled: false,
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
