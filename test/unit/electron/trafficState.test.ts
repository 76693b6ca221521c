import { describe, expect, it } from 'vitest';
import { applyFinishedRequest, emptyTrafficState, type FinishedRequest, type TrafficState } from '../../../electron/logic/trafficState.ts';

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
  return requests.reduce((state, request) => applyFinishedRequest(state, request, dayStartMs), start);
}

describe('applyFinishedRequest', () => {
  it.each<[string, FinishedRequest[], Partial<TrafficState>]>([
    ['sums priced spend, unpriced adds nothing', [ok('a', 1.5), ok('a', null), ok(null, 0.25)], { todaySpendCredits: 1.75 }],
    ['a rejected key marks its profile once', [failure('a', 401, 'auth'), failure('a', 401, 'auth')], { keyRejectedProfileIds: ['a'] }],
    ['a later success clears it', [failure('a', 401, 'auth'), ok('a')], { keyRejectedProfileIds: [] }],
    ['another error keeps it', [failure('a', 401, 'auth'), failure('a', 502, 'upstream_error')], { keyRejectedProfileIds: ['a'] }],
    ['a success elsewhere keeps it', [failure('a', 401, 'auth'), ok('b')], { keyRejectedProfileIds: ['a'] }],
    ['a budget refusal marks the cap', [failure('a', 429, 'budget_exceeded')], { budgetCapsReached: ['profile a'] }],
    ['an empty balance marks its profile', [failure('a', 402, 'quota_exhausted')], { quotaExhaustedProfileIds: ['a'] }],
    [
      'another failure keeps it',
      [failure('a', 402, 'quota_exhausted'), failure('a', 502, 'upstream_error')],
      { quotaExhaustedProfileIds: ['a'] },
    ],
    ['a success after a top-up clears it', [failure('a', 402, 'quota_exhausted'), ok('a')], { quotaExhaustedProfileIds: [] }],
    ['a success on the profile clears the cap', [failure('a', 429, 'budget_exceeded'), ok('a')], { budgetCapsReached: [] }],
  ])('%s', (_name, requests, expected) => {
    expect(run(requests)).toMatchObject(expected);
  });

  it('a new day resets spend and budgets but keeps a rejected key', () => {
    const yesterday = run([ok('a', 3), failure('a', 429, 'budget_exceeded'), failure('b', 401, 'auth')]);
    const today = applyFinishedRequest(yesterday, ok('c', 1), DAY + 86_400_000);
    expect(today).toEqual({
      dayStartMs: DAY + 86_400_000,
      todaySpendCredits: 1,
      keyRejectedProfileIds: ['b'],
      quotaExhaustedProfileIds: [],
      budgetCapsReached: [],
    });
  });
});
