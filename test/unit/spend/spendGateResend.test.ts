import { describe, expect, it } from 'vitest';
import { profileSchema, type Budget } from '../../../proxy/contracts/profile.ts';
import { setup } from './spendGateSetup.ts';

// gpt-x: 2 credits per 1M input, 8 per 1M output (spendGateSetup.ts).
const WORK = { kind: 'profile', profileId: 'work' } as const;
const OTHER = { kind: 'profile', profileId: 'other' } as const;
const other = profileSchema.parse({
  id: 'other',
  name: 'Other',
  baseUrl: 'https://b.example/v1',
  prices: [{ model: 'gpt-x', inputPer1M: 2 }],
});

describe('a hold a resend grew (runs the gateway may bill)', () => {
  it("keeps a step's runs on its profile when the request falls back to another, until the request ends", () => {
    const { gate, input } = setup({ profile: { budget: { dailyCredits: 10 } } });
    const request = input({ estimatedInputTokens: 1_000_000 }); // 2 credits a run
    expect(gate.check(request)).toBeNull();
    // Two 504s, a third run admitted: the hold counts the three runs 'work' may bill.
    expect(gate.admitResend?.(request, 2)).toBeNull();
    expect(gate.reservations.reservedCredits(WORK)).toBeCloseTo(6, 9);
    // The third 504 too: the request falls back to 'other', which holds its own run.
    expect(gate.admitStep({ ...request, profile: other, ownProfile: false })).toBeNull();
    expect(gate.reservations.reservedCredits(WORK)).toBeCloseTo(6, 9);
    expect(gate.reservations.reservedCredits(OTHER)).toBeCloseTo(2, 9);
    // A 5-credit request on work's 10-credit day does not fit beside the three runs.
    expect(gate.check(input({ estimatedInputTokens: 2_500_000 }))?.errorClass).toBe('budget_exceeded');

    gate.recordOutcome({ ...request, profileId: 'other', status: 504, keyRejected: false, costCredits: null, startedAtMs: 0, atMs: 0 });
    expect(gate.reservations.reservedCredits(WORK)).toBe(0);
    expect(gate.reservations.reservedCredits(OTHER)).toBe(0);
    expect(gate.reservations.requestCount).toBe(0);
  });

  it('releases the runs left behind when the request ends on a step no cap prices', () => {
    const { gate, input } = setup({ profile: { budget: { dailyCredits: 10 } } });
    const request = input({ estimatedInputTokens: 1_000_000 });
    expect(gate.check(request)).toBeNull();
    expect(gate.admitResend?.(request, 1)).toBeNull();
    // 'other' has no cap: the step is admitted without an estimate, its hold priced only if a cap asks.
    expect(gate.admitStep({ ...request, profile: other, ownProfile: false, estimatedInputTokens: null })).toBeNull();
    gate.recordOutcome({ ...request, profileId: 'other', status: 200, keyRejected: false, costCredits: 1, startedAtMs: 0, atMs: 0 });
    expect(gate.reservations.reservedCredits(WORK)).toBe(0);
    expect(gate.reservations.requestCount).toBe(0);
  });

  it('a fallback step refused puts the hold back as it was, runs included', () => {
    const { gate, input } = setup({ profile: { budget: { dailyCredits: 10 } } });
    const request = input({ estimatedInputTokens: 1_000_000 });
    expect(gate.check(request)).toBeNull();
    expect(gate.admitResend?.(request, 1)).toBeNull();
    const capped = profileSchema.parse({ ...other, budget: { dailyCredits: 1 } });
    expect(gate.admitStep({ ...request, profile: capped, ownProfile: false })?.errorClass).toBe('budget_exceeded');
    // The count that lands later lowers nothing the resend counted.
    gate.refineHold({ ...request, estimatedInputTokens: 1_000_000 });
    expect(gate.reservations.reservedCredits(WORK)).toBeCloseTo(4, 9);
  });

  it('is not lowered by the background count that lands after it', () => {
    const { gate, input } = setup({ profile: { budget: { dailyCredits: 100 } } });
    const onBound = input({ estimatedInputTokens: 2_000_000 }); // the bound: 4 credits a run
    expect(gate.check(onBound)).toBeNull();
    // A 504 came before the tokenizer's count: the resend is asked at the count, 1M (2 credits a run).
    expect(gate.admitResend?.({ ...onBound, estimatedInputTokens: 1_000_000 }, 1)).toBeNull();
    expect(gate.reservations.reservedCredits(WORK)).toBeCloseTo(4, 9);
    // Then gate.ts's background refineHold arrives with the same count: the run before stays held.
    gate.refineHold({ ...onBound, estimatedInputTokens: 1_000_000 });
    expect(gate.reservations.reservedCredits(WORK)).toBeCloseTo(4, 9);
  });

  it('a count still lowers the bound part of a hold a resend did not grow', () => {
    const { gate, input } = setup({ profile: { budget: { dailyCredits: 100 } } });
    const onBound = input({ estimatedInputTokens: 3_000_000, outputTokensBound: 125_000 }); // 6 + 1 credits
    expect(gate.check(onBound)).toBeNull();
    expect(gate.admitResend?.({ ...onBound, estimatedInputTokens: 1_000_000 }, 1)).toBeNull(); // 2 + 1 + one run of 2
    expect(gate.reservations.reservedCredits(WORK)).toBeCloseTo(7, 9);
    gate.refineHold({ ...onBound, estimatedInputTokens: 1_000_000 });
    expect(gate.reservations.reservedCredits(WORK)).toBeCloseTo(5, 9);
  });
});

describe('a fallback step after runs the gateway may bill', () => {
  const CURSOR = { kind: 'client', clientName: 'cursor' } as const;

  it("is checked beside them on the client's cap they stay on", () => {
    const { gate, input } = setup({ clientBudgets: { cursor: { dailyCredits: 7 } } });
    const request = input({ estimatedInputTokens: 1_000_000 }); // 2 credits a run
    expect(gate.check(request)).toBeNull();
    expect(gate.admitResend?.(request, 2)).toBeNull(); // three runs: 6 of the client's 7 credits
    // Another run on 'other' is 2 credits more for the same client: 8 would cross its 7.
    expect(gate.admitStep({ ...request, profile: other, ownProfile: false })?.errorClass).toBe('budget_exceeded');
    expect(gate.reservations.reservedCredits(CURSOR)).toBeCloseTo(6, 9);
    gate.recordOutcome({ ...request, profileId: 'work', status: 504, keyRejected: false, costCredits: null, startedAtMs: 0, atMs: 0 });
    expect(gate.reservations.reservedCredits(CURSOR)).toBe(0);
    expect(gate.reservations.requestCount).toBe(0);
  });

  it("is checked beside them on its own profile's cap (another model of it)", () => {
    const { gate, input } = setup({ profile: { budget: { dailyCredits: 7 } } });
    const request = input({ estimatedInputTokens: 1_000_000 });
    expect(gate.check(request)).toBeNull();
    expect(gate.admitResend?.(request, 2)).toBeNull();
    expect(gate.admitStep({ ...request, ownProfile: true })?.errorClass).toBe('budget_exceeded');
    expect(gate.reservations.reservedCredits(WORK)).toBeCloseTo(6, 9);
  });

  it('leaves nothing held when the request ends, after resends, a refused step and steps admitted', () => {
    const { gate, input } = setup({ profile: { budget: { dailyCredits: 100 } } });
    const request = input({ estimatedInputTokens: 1_000_000 });
    expect(gate.check(request)).toBeNull();
    expect(gate.admitResend?.(request, 1)).toBeNull();
    const tight = profileSchema.parse({ ...other, budget: { dailyCredits: 0.1 } });
    expect(gate.admitStep({ ...request, profile: tight, ownProfile: false })).not.toBeNull();
    expect(gate.admitStep({ ...request, ownProfile: true })).toBeNull();
    expect(gate.admitResend?.(request, 2)).toBeNull();
    expect(gate.admitStep({ ...request, profile: other, ownProfile: false, estimatedInputTokens: null })).toBeNull();
    gate.recordOutcome({ ...request, profileId: 'other', status: 200, keyRejected: false, costCredits: 0, startedAtMs: 0, atMs: 0 });
    expect(gate.reservations.reservedCredits(WORK)).toBe(0);
    expect(gate.reservations.reservedCredits(CURSOR)).toBe(0);
    expect(gate.reservations.requestCount).toBe(0);
  });
});

describe('a request admitted while no cap applied', () => {
  it('holds its input at the bound its plan gives, once a cap set while it runs reads the holds', () => {
    const budgets: Record<string, Budget> = {};
    const { gate, input } = setup({ clientBudgets: budgets });
    let bounds = 0;
    const running = input({
      estimatedInputTokens: null,
      inputSource: { tokens: 2_000_000 },
      inputBoundOf: (source) => {
        bounds += 1;
        return (source as { tokens: number }).tokens;
      },
    });
    expect(gate.check(running)).toBeNull();
    expect(bounds).toBe(0);
    budgets['cursor'] = { dailyCredits: 5 };
    // The running request's 2M-token input is 4 credits: a 2-credit request does not fit beside it.
    expect(gate.check(input({ estimatedInputTokens: 1_000_000 }))?.errorClass).toBe('budget_exceeded');
    expect(bounds).toBe(1);
    expect(gate.reservations.reservedCredits({ kind: 'client', clientName: 'cursor' })).toBeCloseTo(4, 9);
  });
});
