import { describe, expect, it } from 'vitest';
import type { AppState } from '../../../electron/logic/appState.ts';
import { trayIconState, trayTooltip } from '../../../electron/logic/trayState.ts';
import { appState, ORIGIN } from './appStateFixture.ts';

const paused = { status: 'paused' as const, port: 8642, origin: ORIGIN };
const failed = {
  status: 'failed' as const,
  port: 8642,
  problem: { kind: 'port_in_use' as const, detail: 'port 8642 on 127.0.0.1 is already in use' },
};

describe('trayIconState precedence: error > budget > paused > serving', () => {
  it.each<[string, Partial<AppState>, string]>([
    ['serving', {}, 'serving'],
    ['starting counts as serving-to-be', { proxy: { status: 'starting', port: 8642 } }, 'serving'],
    ['paused', { proxy: paused }, 'paused'],
    ['budget', { budgetReachedProfileIds: ['main'] }, 'budget'],
    ['budget while paused', { proxy: paused, budgetReachedProfileIds: ['main'] }, 'budget'],
    ['key rejected', { keyRejectedProfileIds: ['main'] }, 'error'],
    [
      'gateway account out of balance, over a reached budget',
      { quotaExhaustedProfileIds: ['main'], budgetReachedProfileIds: ['main'] },
      'error',
    ],
    ['key rejected with budget and paused', { proxy: paused, keyRejectedProfileIds: ['main'], budgetReachedProfileIds: ['main'] }, 'error'],
    ['failed to start', { proxy: failed }, 'error'],
    ['a client paused by the burst guard', { pausedClients: [{ name: 'aider', reason: 'burst' }] }, 'budget'],
  ])('%s', (_name, overrides, expected) => {
    expect(trayIconState(appState(overrides))).toBe(expected);
  });
});

describe('trayTooltip', () => {
  it.each<[Partial<AppState>, string]>([
    [{}, 'Airlock: serving on 127.0.0.1:8642 · Main gateway'],
    [{ activeProfileId: null }, 'Airlock: serving on 127.0.0.1:8642 · no profile'],
    [{ proxy: paused }, 'Airlock: paused · Main gateway'],
    [{ proxy: { status: 'starting', port: 8642 } }, 'Airlock: starting on 127.0.0.1:8642'],
    [{ proxy: failed }, 'Airlock: not running (port 8642 on 127.0.0.1 is already in use)'],
    [{ keyRejectedProfileIds: ['main'] }, 'Airlock: the gateway rejected the key · Main gateway'],
    [{ pausedClients: [{ name: 'aider', reason: 'burst' }] }, 'Airlock: client aider paused by the burst guard · Main gateway'],
    [{ quotaExhaustedProfileIds: ['main'] }, 'Airlock: the gateway account is out of balance, top it up · Main gateway'],
    [{ budgetReachedProfileIds: ['main'] }, 'Airlock: budget reached (profile "Main gateway")'],
  ])('%j', (overrides, expected) => {
    expect(trayTooltip(appState(overrides), 'Airlock')).toBe(expected);
  });
});
