import { describe, expect, it } from 'vitest';
import { decideBudget, type BudgetOwner } from '../../../proxy/spend/budgetDecision.ts';

const profile = (budget: BudgetOwner['budget'], dayCredits = 0, monthCredits = dayCredits, inFlightCredits = 0): BudgetOwner => ({
  kind: 'profile',
  name: 'work',
  budget,
  totals: { dayCredits, monthCredits },
  inFlightCredits,
});
const client = (budget: BudgetOwner['budget'], dayCredits = 0, monthCredits = dayCredits): BudgetOwner => ({
  kind: 'client',
  name: 'cursor',
  budget,
  totals: { dayCredits, monthCredits },
  inFlightCredits: 0,
});

describe('decideBudget allows', () => {
  it.each([
    { name: 'no budgets', owners: [profile(undefined, 1000)], estimate: 5 },
    { name: 'empty budget', owners: [profile({}, 1000)], estimate: 5 },
    {
      name: 'under every cap',
      owners: [profile({ dailyCredits: 20, monthlyCredits: 100, perRequestInputCredits: 1 }, 10, 50)],
      estimate: 0.5,
    },
    { name: 'estimate exactly reaches the cap', owners: [profile({ dailyCredits: 20 }, 19)], estimate: 1 },
    { name: 'unknown estimate skips the per-request cap', owners: [profile({ perRequestInputCredits: 0.01 })], estimate: null },
    { name: 'client under its cap', owners: [profile({}), client({ dailyCredits: 2 }, 1.5)], estimate: null },
    { name: 'spent and in flight exactly reach the cap', owners: [profile({ dailyCredits: 20 }, 15, 15, 4)], estimate: 1 },
  ])('$name', ({ owners, estimate }) => {
    expect(decideBudget({ owners, estimatedInputCredits: estimate })).toBeNull();
  });
});

describe('decideBudget refuses', () => {
  it.each([
    {
      name: 'daily cap reached',
      owners: [profile({ dailyCredits: 20 }, 20.13)],
      estimate: null,
      header: 'daily',
      message: "daily cap of 20 credits for profile 'work' reached: 20.13 spent today",
    },
    {
      name: 'daily cap would be crossed by the estimate',
      owners: [profile({ dailyCredits: 20 }, 19.5)],
      estimate: 0.75,
      header: 'daily',
      message:
        "daily cap of 20 credits for profile 'work' would be crossed: 19.5 spent today, and this request's input is estimated at 0.75 credits",
    },
    {
      name: 'daily cap would be crossed with the requests still running',
      owners: [profile({ dailyCredits: 20 }, 15, 15, 4.5)],
      estimate: 0.75,
      header: 'daily',
      message:
        "daily cap of 20 credits for profile 'work' would be crossed: 15 spent today and 4.5 held for requests still running, and this request's input is estimated at 0.75 credits",
    },
    {
      name: 'monthly cap reached',
      owners: [profile({ dailyCredits: 20, monthlyCredits: 100 }, 1, 100)],
      estimate: null,
      header: 'monthly',
      message: "monthly cap of 100 credits for profile 'work' reached: 100 spent this month",
    },
    {
      name: 'per-request cap',
      owners: [profile({ perRequestInputCredits: 0.5 })],
      estimate: 0.6,
      header: 'per-request',
      message: "per-request input cap of 0.5 credits for profile 'work' exceeded: this request's input is estimated at 0.6 credits",
    },
    {
      name: 'client token cap',
      owners: [profile({ dailyCredits: 20 }, 3), client({ dailyCredits: 2 }, 3)],
      estimate: null,
      header: 'daily',
      message: "daily cap of 2 credits for client token 'cursor' reached: 3 spent today",
    },
    {
      name: 'profile named before client when both refuse',
      owners: [profile({ monthlyCredits: 10 }, 1, 10), client({ dailyCredits: 2 }, 3)],
      estimate: null,
      header: 'monthly',
      message: "monthly cap of 10 credits for profile 'work' reached",
    },
    {
      name: 'a per-call price would cross the daily cap (no input price to estimate)',
      owners: [profile({ dailyCredits: 5 }, 4.5)],
      estimate: null,
      perCall: 1,
      header: 'daily',
      message: "daily cap of 5 credits for profile 'work' would be crossed: 4.5 spent today, and its price per call is 1 credits",
    },
    {
      name: 'input and per-call price together cross the monthly cap',
      owners: [profile({ monthlyCredits: 10 }, 0, 9)],
      estimate: 0.5,
      perCall: 0.6,
      header: 'monthly',
      message: "this request's input is estimated at 0.5 credits and its price per call is 0.6 credits",
    },
  ])('$name', ({ owners, estimate, header, message, ...rest }) => {
    const perCall = 'perCall' in rest ? rest.perCall : null;
    const refusal = decideBudget({ owners, estimatedInputCredits: estimate, perCallCredits: perCall });
    expect(refusal).toMatchObject({ status: 402, errorClass: 'budget_exceeded', headers: { 'x-airlock-budget': header } });
    expect(refusal?.message).toContain(message);
    expect(refusal?.message).toContain('nothing was sent to the gateway');
  });

  it.each([
    // The places a user can reach: the window has a Profiles screen, and client tokens' budgets are set in airlock.json only.
    {
      owner: profile({ dailyCredits: 1 }, 1),
      fix: 'Raise or remove budget.dailyCredits on the Profiles screen or in airlock.json in the data directory.',
    },
    {
      owner: client({ monthlyCredits: 1 }, 0, 1),
      fix: "Raise or remove budget.monthlyCredits of client token 'cursor' in airlock.json in the data directory (its entry under clientTokens).",
    },
  ])('says how to raise the $owner.kind cap', ({ owner, fix }) => {
    expect(decideBudget({ owners: [owner], estimatedInputCredits: null })?.message).toContain(fix);
  });
});

describe('decideBudget with spend missing from the ledger', () => {
  const local = (month: number, day: number, hour = 12): number => new Date(2026, month, day, hour).getTime();
  const gapAt = (lastLossMs: number) => ({ gap: { lastLossMs, reason: 'The disk holding /data is full.' }, nowMs: local(2, 15) });

  it.each([
    { name: 'a daily cap, loss today', owners: [profile({ dailyCredits: 20 })], lastLossMs: local(2, 15, 1), header: 'daily' },
    {
      name: 'a monthly cap, loss earlier this month',
      owners: [profile({ monthlyCredits: 100 })],
      lastLossMs: local(2, 1),
      header: 'monthly',
    },
    {
      name: 'a client cap behind an uncapped profile',
      owners: [profile(undefined), client({ dailyCredits: 2 })],
      lastLossMs: local(2, 15),
      header: 'daily',
    },
  ])('refuses $name, whatever was spent', ({ owners, lastLossMs, header }) => {
    const refusal = decideBudget({ owners, estimatedInputCredits: null, ledgerGap: gapAt(lastLossMs) });
    expect(refusal).toMatchObject({
      status: 507,
      errorClass: 'ledger_incomplete',
      code: 'ledger_incomplete',
      headers: { 'x-airlock-budget': header },
    });
    expect(refusal?.message).toMatch(
      /nothing was sent to the gateway\): the (daily|monthly) cap of .* cannot be checked, because Airlock's record of spend is incomplete\. The disk holding \/data is full\.$/,
    );
  });

  it.each([
    { name: 'no cap at all', owners: [profile(undefined)], lastLossMs: local(2, 15) },
    { name: 'only a per-request cap', owners: [profile({ perRequestInputCredits: 1 })], lastLossMs: local(2, 15) },
    { name: 'a daily cap, loss yesterday', owners: [profile({ dailyCredits: 20 })], lastLossMs: local(2, 14, 23) },
    { name: 'a monthly cap, loss last month', owners: [profile({ monthlyCredits: 100 })], lastLossMs: local(1, 28) },
  ])('admits $name', ({ owners, lastLossMs }) => {
    expect(decideBudget({ owners, estimatedInputCredits: 0.1, ledgerGap: gapAt(lastLossMs) })).toBeNull();
  });
});

/**
 * A total that is not a number (a sum that reached Infinity, then Infinity - Infinity) compares
 * false with every cap: `NaN >= cap` let every request through. A cap that cannot be checked refuses.
 */
describe('decideBudget with a total that is not a finite number', () => {
  it.each([
    { name: 'spent today is NaN', owner: profile({ dailyCredits: 20 }, Number.NaN, 1), estimate: null, header: 'daily' },
    {
      name: 'spent this month is Infinity',
      owner: profile({ monthlyCredits: 20 }, 1, Number.POSITIVE_INFINITY),
      estimate: 1,
      header: 'monthly',
    },
    { name: 'held for running requests is NaN', owner: profile({ dailyCredits: 20 }, 1, 1, Number.NaN), estimate: 1, header: 'daily' },
    { name: 'the estimate is NaN', owner: profile({ dailyCredits: 20 }, 1), estimate: Number.NaN, header: 'daily' },
    {
      name: 'the estimate is Infinity',
      owner: profile({ perRequestInputCredits: 5 }),
      estimate: Number.POSITIVE_INFINITY,
      header: 'per-request',
    },
  ])('refuses: $name', ({ owner, estimate, header }) => {
    const refusal = decideBudget({ owners: [owner], estimatedInputCredits: estimate });
    expect(refusal).toMatchObject({ status: 402, errorClass: 'budget_exceeded', headers: { 'x-airlock-budget': header } });
    expect(refusal?.message).toContain('cannot be checked');
    expect(refusal?.message).not.toContain('NaN');
  });
});

describe('decideBudget with a model the profile has no price for', () => {
  const unpricedModel = { model: 'gpt-4o-mini', profileName: 'work', unstated: null, unit: 'tokens' } as const;
  it.each([
    { name: 'no budget anywhere', owners: [profile(undefined)], refusedBy: null },
    { name: 'an empty budget', owners: [profile({})], refusedBy: null },
    { name: "the profile's daily cap", owners: [profile({ dailyCredits: 5 })], refusedBy: 'daily' },
    { name: "the profile's monthly cap", owners: [profile({ monthlyCredits: 50 })], refusedBy: 'monthly' },
    { name: "the profile's per-request cap", owners: [profile({ perRequestInputCredits: 1 })], refusedBy: 'per-request' },
    { name: "a client token's cap", owners: [profile(undefined), client({ dailyCredits: 2 })], refusedBy: 'daily' },
  ])('$name: refused by $refusedBy', ({ owners, refusedBy }) => {
    const refusal = decideBudget({ owners, estimatedInputCredits: null, unpricedModel });
    expect(refusal?.headers?.['x-airlock-budget'] ?? null).toBe(refusedBy);
    if (refusal) expect(refusal).toMatchObject({ status: 402, errorClass: 'unpriced_model', code: 'unpriced_model' });
  });
});
