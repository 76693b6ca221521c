import { describe, expect, it } from 'vitest';
import {
  applyFinishedRequest,
  emptyTrafficState,
  rollDay,
  type FinishedRequest,
  type TrafficState,
} from '../../../electron/logic/trafficState.ts';

const DAY = 1_000;
const ok = (profileId: string | null, costCredits: number | null = null): FinishedRequest => ({
  profileId,
  status: 200,
  errorClass: null,
  costCredits,
});
const failure = (profileId: string, status: number, errorClass: FinishedRequest['errorClass']): FinishedRequest => ({
  profileId,
  status,
  errorClass,
  costCredits: null,
});

function run(requests: FinishedRequest[], start: TrafficState = emptyTrafficState(DAY), dayStartMs = DAY): TrafficState {
  return requests.reduce((state, request) => applyFinishedRequest(state, request, dayStartMs, () => 0), start);
}

describe('applyFinishedRequest', () => {
  it.each<[string, FinishedRequest[], Partial<TrafficState>]>([
    ['sums priced spend, unpriced adds nothing', [ok('a', 1.5), ok('a', null), ok(null, 0.25)], { todaySpendCredits: 1.75 }],
    ['a rejected key marks its profile once', [failure('a', 401, 'auth'), failure('a', 401, 'auth')], { keyRejectedProfileIds: ['a'] }],
    ['a later success clears it', [failure('a', 401, 'auth'), ok('a')], { keyRejectedProfileIds: [] }],
    ['another error keeps it', [failure('a', 401, 'auth'), failure('a', 502, 'upstream_error')], { keyRejectedProfileIds: ['a'] }],
    ['a success elsewhere keeps it', [failure('a', 401, 'auth'), ok('b')], { keyRejectedProfileIds: ['a'] }],
    ['a budget refusal marks its profile', [failure('a', 402, 'budget_exceeded')], { budgetReachedProfileIds: ['a'] }],
    ['an empty balance marks its profile', [failure('a', 402, 'quota_exhausted')], { quotaExhaustedProfileIds: ['a'] }],
    [
      'another failure keeps it',
      [failure('a', 402, 'quota_exhausted'), failure('a', 502, 'upstream_error')],
      { quotaExhaustedProfileIds: ['a'] },
    ],
    ['a success after a top-up clears it', [failure('a', 402, 'quota_exhausted'), ok('a')], { quotaExhaustedProfileIds: [] }],
    ['a success on the profile clears it', [failure('a', 402, 'budget_exceeded'), ok('a')], { budgetReachedProfileIds: [] }],
  ])('%s', (_name, requests, expected) => {
    expect(run(requests)).toMatchObject(expected);
  });

  it('a new day resets spend and budgets but keeps a rejected key', () => {
    const yesterday = run([ok('a', 3), failure('a', 402, 'budget_exceeded'), failure('b', 401, 'auth')]);
    const today = applyFinishedRequest(yesterday, ok('c', 1), DAY + 86_400_000, () => 0);
    expect(today).toEqual({
      dayStartMs: DAY + 86_400_000,
      todaySpendCredits: 1,
      keyRejectedProfileIds: ['b'],
      quotaExhaustedProfileIds: [],
      budgetReachedProfileIds: [],
    });
  });

  it('a new day starts from what the log holds for it: a time zone change can begin it hours ago', () => {
    // Flown from Paris to Tokyo at 21:00: the new local day began at 17:00 Paris time, and 4 credits were spent since.
    const paris = run([ok('a', 7)]);
    const tokyoDayStartMs = DAY + 60_000;
    const spentSince = (dayStartMs: number) => (dayStartMs === tokyoDayStartMs ? 4 : Number.NaN);
    expect(rollDay(paris, tokyoDayStartMs, spentSince).todaySpendCredits).toBe(4);
    expect(applyFinishedRequest(paris, ok('a', 1), tokyoDayStartMs, spentSince).todaySpendCredits).toBe(5);
    expect(rollDay(paris, DAY, spentSince)).toBe(paris);
  });
});
