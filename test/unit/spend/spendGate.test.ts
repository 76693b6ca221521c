import { describe, expect, it } from 'vitest';
import type { SpendCheckInput } from '../../../proxy/contracts/ports.ts';
import { profileSchema, type Budget } from '../../../proxy/contracts/profile.ts';
import { NOW, setup } from './spendGateSetup.ts';

describe('needsInputEstimate', () => {
  it.each<{
    name: string;
    profileBudget: Budget | undefined;
    clientBudgets: Record<string, Budget>;
    tokenName: string | null;
    needed: boolean;
  }>([
    { name: 'no budget anywhere', profileBudget: undefined, clientBudgets: {}, tokenName: 'cursor', needed: false },
    { name: 'a profile budget with no cap set', profileBudget: {}, clientBudgets: {}, tokenName: 'cursor', needed: false },
    { name: 'a profile daily cap', profileBudget: { dailyCredits: 5 }, clientBudgets: {}, tokenName: 'cursor', needed: true },
    { name: 'a profile monthly cap', profileBudget: { monthlyCredits: 50 }, clientBudgets: {}, tokenName: null, needed: true },
    {
      name: 'a per-request cap on this client',
      profileBudget: undefined,
      clientBudgets: { cursor: { perRequestInputCredits: 1 } },
      tokenName: 'cursor',
      needed: true,
    },
    {
      name: 'a cap on another client only',
      profileBudget: undefined,
      clientBudgets: { aider: { dailyCredits: 1 } },
      tokenName: 'cursor',
      needed: false,
    },
    {
      name: 'an anonymous client',
      profileBudget: undefined,
      clientBudgets: { cursor: { dailyCredits: 1 } },
      tokenName: null,
      needed: false,
    },
  ])('$name -> $needed', ({ profileBudget, clientBudgets, tokenName, needed }) => {
    const { gate, input } = setup({ profile: profileBudget === undefined ? {} : { budget: profileBudget }, clientBudgets });
    expect(gate.needsInputEstimate({ tokenName, pinnedProfileId: null }, input().profile)).toBe(needed);
  });
});

describe('budgetsAdmit', () => {
  // gpt-x input costs 2 credits per 1M tokens: 1,000,000 tokens are 2 credits.
  it.each([
    { name: 'no cap', budget: undefined, spent: 0, tokens: 10_000_000, admits: true },
    { name: 'room for the estimate', budget: { dailyCredits: 10 }, spent: 5, tokens: 1_000_000, admits: true },
    { name: 'the estimate would cross the daily cap', budget: { dailyCredits: 10 }, spent: 9, tokens: 1_000_000, admits: false },
    { name: 'the estimate is over the per-request cap', budget: { perRequestInputCredits: 1 }, spent: 0, tokens: 1_000_000, admits: false },
  ])('$name -> $admits', ({ budget, spent, tokens, admits }) => {
    const { gate, input, spend } = setup({ profile: budget === undefined ? {} : { budget } });
    if (spent > 0) spend(spent);
    expect(gate.budgetsAdmit(input({ estimatedInputTokens: tokens }))).toBe(admits);
  });

  it('has no side effects: neither the burst guard nor the reservations count it', () => {
    const { gate, input } = setup({ profile: { budget: { dailyCredits: 10 } }, deps: { burstGuard: { maxRequests: 1 } } });
    for (let index = 0; index < 5; index += 1) expect(gate.budgetsAdmit(input({ estimatedInputTokens: 4_000_000 }))).toBe(true);
    expect(gate.reservations.reservedCredits({ kind: 'profile', profileId: 'work' })).toBe(0);
    expect(gate.check(input({ estimatedInputTokens: 4_000_000 }))).toBeNull();
  });
});

describe('createSpendGate', () => {
  it('allows a request with no caps reached', () => {
    const { gate, input } = setup({ profile: { budget: { dailyCredits: 20 } } });
    expect(gate.check(input())).toBeNull();
  });

  it('refuses once the profile daily cap is reached by recorded spend', () => {
    const { gate, input, spend } = setup({ profile: { budget: { dailyCredits: 20 } } });
    spend(12);
    expect(gate.check(input())).toBeNull();
    spend(8.13);
    expect(gate.check(input())).toMatchObject({ status: 402, errorClass: 'budget_exceeded', headers: { 'x-airlock-budget': 'daily' } });
    expect(gate.check(input())?.message).toContain("daily cap of 20 credits for profile 'work' reached: 20.13 spent today");
  });

  it('the daily cap lifts at local midnight', () => {
    const { gate, input, spend, advance } = setup({ profile: { budget: { dailyCredits: 1 } } });
    spend(1);
    expect(gate.check(input())).not.toBeNull();
    advance(12 * 3_600_000);
    expect(gate.check(input())).toBeNull();
  });

  it.each([
    { name: 'over the per-request cap', tokens: 600_000, model: 'gpt-x', multiplier: 1, refused: true },
    { name: 'under the per-request cap', tokens: 400_000, model: 'gpt-x', multiplier: 1, refused: false },
    { name: 'multiplier pushes it over', tokens: 400_000, model: 'gpt-x', multiplier: 2, refused: true },
    { name: 'case-insensitive price match', tokens: 600_000, model: 'GPT-X', multiplier: 1, refused: true },
    { name: 'unpriced model cannot be estimated', tokens: 600_000, model: 'other', multiplier: 1, refused: false },
  ])('per-request input cap (1 credit): $name', ({ tokens, model, multiplier, refused }) => {
    const { gate, input } = setup({ profile: { budget: { perRequestInputCredits: 1 }, priceMultiplier: multiplier } });
    const refusal = gate.check(input({ estimatedInputTokens: tokens, upstreamModel: model }));
    expect(refusal?.headers?.['x-airlock-budget'] ?? null).toBe(refused ? 'per-request' : null);
  });

  it('applies the client token budget to that client only', () => {
    const { gate, input, spend } = setup({ clientBudgets: { cursor: { dailyCredits: 1 } } });
    spend(1.5);
    expect(gate.check(input())?.message).toContain("client token 'cursor'");
    expect(gate.check(input({ identity: { tokenName: 'aider', pinnedProfileId: null } }))).toBeNull();
  });

  it('pauses a bursting client until resumed', () => {
    const { gate, input } = setup({ deps: { burstGuard: { maxRequests: 2 } } });
    expect([gate.check(input()), gate.check(input())]).toEqual([null, null]);
    expect(gate.check(input())?.errorClass).toBe('client_paused');
    expect(gate.pausedClients().map((pause) => pause.clientName)).toEqual(['cursor']);
    expect(gate.resumeClient('cursor')).toBe(true);
    expect(gate.check(input())).toBeNull();
  });

  it('requests refused by a budget do not count toward the burst', () => {
    const { gate, input } = setup({ profile: { budget: { perRequestInputCredits: 1 } }, deps: { burstGuard: { maxRequests: 2 } } });
    for (let attempt = 0; attempt < 5; attempt += 1) {
      expect(gate.check(input({ estimatedInputTokens: 10_000_000 }))?.errorClass).toBe('budget_exceeded');
    }
    expect([gate.check(input()), gate.check(input())]).toEqual([null, null]);
  });

  it('pauses on credits spent in a burst, including requests without a client token', () => {
    const { gate, input, spend } = setup({ deps: { burstGuard: { maxCredits: 5 } } });
    spend(6, 200, null);
    expect(gate.check(input({ identity: { tokenName: null, pinnedProfileId: null } }))?.errorClass).toBe('client_paused');
    expect(gate.check(input())).toBeNull();
  });

  it('opens the auth breaker on a 401 outcome and resets it on a key change', () => {
    const { gate, input, spend } = setup();
    spend(null, 401);
    expect(gate.check(input())).toMatchObject({ status: 403, errorClass: 'circuit_open' });
    gate.resetAuthBreaker('work');
    expect(gate.check(input())).toBeNull();
  });

  it('a budget refusal does not consume the half-open probe', () => {
    const { gate, input, spend, advance } = setup({ profile: { budget: { perRequestInputCredits: 1 } } });
    spend(null, 401);
    advance(30_000);
    expect(gate.check(input({ estimatedInputTokens: 10_000_000 }))?.errorClass).toBe('budget_exceeded');
    expect(gate.check(input())).toBeNull();
    expect(gate.check(input())?.errorClass).toBe('circuit_open');
  });

  it('counts the estimates of admitted requests still running, so parallel requests cannot overshoot a cap together', () => {
    // 1M input tokens of gpt-x at 2 credits per 1M: each request reserves 2 credits of a 5-credit day.
    const { gate, input } = setup({ profile: { budget: { dailyCredits: 5 } } });
    const running = [input({ estimatedInputTokens: 1_000_000 }), input({ estimatedInputTokens: 1_000_000 })];
    for (const request of running) expect(gate.check(request)).toBeNull();
    const third = gate.check(input({ estimatedInputTokens: 1_000_000 }));
    expect(third?.message).toContain('0 spent today and 4 held for requests still running');
    expect(gate.reservations.requestCount).toBe(2);

    // The first ends having cost 1.5 credits: its reservation gives way to what it really cost.
    const [first] = running;
    gate.recordOutcome({
      requestId: first?.requestId ?? '',
      identity: { tokenName: 'cursor', pinnedProfileId: null },
      profileId: 'work',
      status: 200,
      keyRejected: false,
      costCredits: 1.5,
      startedAtMs: NOW,
      atMs: NOW,
    });
    expect(gate.reservations.requestCount).toBe(1);
    expect(gate.check(input({ estimatedInputTokens: 500_000 }))).toBeNull();
    expect(gate.check(input({ estimatedInputTokens: 500_000 }))?.errorClass).toBe('budget_exceeded');
  });

  it.each([
    { name: 'one creation that would cross the cap', spent: 4.5, running: 0, admitted: 0 },
    { name: 'parallel creations racing the last credits', spent: 0, running: 10, admitted: 5 },
    { name: 'parallel creations of two images each', spent: 0, running: 10, admitted: 2, callsBound: 2 },
    { name: 'one creation of six images', spent: 0, running: 0, admitted: 0, callsBound: 6 },
  ])('counts a per-call price against daily caps before sending: $name', ({ spent, running, admitted, callsBound }) => {
    // 1 credit per image, a 5-credit day: the price is known exactly before the request is sent.
    const { gate, input, spend } = setup({
      profile: { budget: { dailyCredits: 5 }, prices: [{ model: 'image-x', perCall: 1 }] },
    });
    if (spent > 0) spend(spent);
    const requests = Array.from({ length: Math.max(running, 1) }, () =>
      gate.check(input({ upstreamPath: '/images/generations', upstreamModel: 'image-x', estimatedInputTokens: 20, callsBound })),
    );
    expect(requests.filter((refusal) => refusal === null)).toHaveLength(admitted);
  });

  it.each([
    { name: 'one WAV whose audio would cross the cap', spent: 4.5, running: 0, admitted: 0, audio: { seconds: 60, exact: true } },
    { name: 'parallel WAVs racing the last credits', spent: 0, running: 10, admitted: 2, audio: { seconds: 120, exact: true } },
    // A size-based bound over-counts up to 16 times: it never refuses its own upload, as an output limit does not.
    { name: 'one compressed upload bounded past the cap', spent: 4.5, running: 0, admitted: 1, audio: { seconds: 600, exact: false } },
    { name: 'parallel compressed uploads held at their bounds', spent: 0, running: 10, admitted: 3, audio: { seconds: 120, exact: false } },
    { name: 'an upload of unknown length holds nothing but is still refused at the cap', spent: 5, running: 0, admitted: 0, audio: null },
  ])('counts the audio an upload may be billed for against daily caps before sending: $name', ({ spent, running, admitted, audio }) => {
    // 1 credit per audio minute, a 5-credit day: whisper-1 is billed by the minute of audio it hears.
    const { gate, input, spend } = setup({
      profile: { budget: { dailyCredits: 5 }, prices: [{ model: 'whisper-x', perAudioMinute: 1 }] },
    });
    if (spent > 0) spend(spent);
    const upload = {
      upstreamPath: '/audio/transcriptions',
      upstreamModel: 'whisper-x',
      estimatedInputTokens: null,
      uploadAudio: audio,
    };
    const requests = Array.from({ length: Math.max(running, 1) }, () => gate.check(input(upload)));
    expect(requests.filter((refusal) => refusal === null)).toHaveLength(admitted);
  });

  it('reserves nothing for a refused request', () => {
    const { gate, input } = setup({ profile: { budget: { perRequestInputCredits: 1 } } });
    expect(gate.check(input({ estimatedInputTokens: 10_000_000 }))?.errorClass).toBe('budget_exceeded');
    expect(gate.reservations.requestCount).toBe(0);
  });

  it.each([
    { name: 'a count below the bound lowers the hold to it', heldTokens: 2_000_000, refinedTokens: 500_000, heldCredits: 1 },
    { name: 'a count above the bound leaves the bound held', heldTokens: 1_000_000, refinedTokens: 1_500_000, heldCredits: 2 },
  ])('refineHold: $name', ({ heldTokens, refinedTokens, heldCredits }) => {
    const { gate, input } = setup({ profile: { budget: { dailyCredits: 5 } } });
    const admitted = input({ estimatedInputTokens: heldTokens });
    expect(gate.check(admitted)).toBeNull();
    gate.refineHold({ ...admitted, estimatedInputTokens: refinedTokens });
    expect(gate.reservations.reservedCredits({ kind: 'profile', profileId: 'work' })).toBe(heldCredits);
    expect(gate.reservations.reservedCredits({ kind: 'client', clientName: 'cursor' })).toBe(heldCredits);
  });

  it('refineHold after the request ended reserves nothing again', () => {
    const { gate, input } = setup({ profile: { budget: { dailyCredits: 5 } } });
    const admitted = input({ estimatedInputTokens: 1_000_000 });
    expect(gate.check(admitted)).toBeNull();
    gate.recordOutcome({
      requestId: admitted.requestId,
      identity: admitted.identity,
      profileId: 'work',
      status: 200,
      keyRejected: false,
      costCredits: 1,
      startedAtMs: NOW,
      atMs: NOW,
    });
    gate.refineHold({ ...admitted, estimatedInputTokens: 10 });
    expect(gate.reservations.requestCount).toBe(0);
    expect(gate.reservations.reservedCredits({ kind: 'profile', profileId: 'work' })).toBe(0);
  });
});

describe('the ledger gap', () => {
  const gap = { lastLossMs: NOW, reason: 'The disk holding /data is full.' };

  it.each([
    { name: 'no budget', budget: undefined },
    { name: 'only a per-request cap', budget: { perRequestInputCredits: 5 } },
  ])('is not looked up for a profile with $name: nothing on the forwarding loop per request', ({ budget }) => {
    let lookups = 0;
    const { gate, input } = setup({
      profile: budget === undefined ? {} : { budget },
      deps: {
        ledgerGap: () => {
          lookups += 1;
          return gap;
        },
      },
    });
    expect(gate.check(input())).toBeNull();
    expect(gate.budgetsAdmit(input())).toBe(true);
    expect(lookups).toBe(0);
  });

  it('refuses a daily cap whose day holds the loss, from either owner', () => {
    const { gate, input } = setup({ clientBudgets: { cursor: { dailyCredits: 10 } }, deps: { ledgerGap: () => gap } });
    expect(gate.check(input())).toMatchObject({ status: 507, code: 'ledger_incomplete' });
    expect(gate.budgetsAdmit(input())).toBe(false);
  });
});

describe('admitStep (a fallback step on another profile)', () => {
  // The backup charges 4 credits per 1M input tokens of gpt-x, twice the main profile's price.
  const backupOf = (base: SpendCheckInput['profile'], budget: Budget = {}) =>
    profileSchema.parse({ ...base, id: 'backup', name: 'Backup', prices: [{ model: 'gpt-x', inputPer1M: 4, outputPer1M: 8 }], budget });
  /** Another request's 401 from the backup's gateway opens the backup's auth breaker. */
  const rejectBackupKey = (gate: ReturnType<typeof setup>['gate']) =>
    gate.recordOutcome({
      requestId: 'other',
      identity: { tokenName: 'cursor', pinnedProfileId: null },
      profileId: 'backup',
      status: 401,
      keyRejected: true,
      costCredits: null,
      startedAtMs: NOW,
      atMs: NOW,
    });
  const held = (gate: ReturnType<typeof setup>['gate'], profileId: string) =>
    gate.reservations.reservedCredits({ kind: 'profile', profileId });

  it("moves the request's hold to the step's profile at the step's prices; the client's hold follows without counting twice", () => {
    const { gate, input } = setup({ clientBudgets: { cursor: { dailyCredits: 5 } } });
    const first = input({ estimatedInputTokens: 1_000_000 });
    expect(gate.check(first)).toBeNull();
    expect(held(gate, 'work')).toBe(2);
    // 4 credits on the backup: with the request's own 2 still counted, the client's 5 would refuse it.
    expect(gate.admitStep({ ...first, ownProfile: false, profile: backupOf(first.profile), estimatedInputTokens: 1_000_000 })).toBeNull();
    expect(held(gate, 'work')).toBe(0);
    expect(held(gate, 'backup')).toBe(4);
    expect(gate.reservations.reservedCredits({ kind: 'client', clientName: 'cursor' })).toBe(4);
    gate.recordOutcome({
      requestId: first.requestId,
      identity: first.identity,
      profileId: 'backup',
      status: 200,
      keyRejected: false,
      costCredits: 1,
      startedAtMs: NOW,
      atMs: NOW,
    });
    expect(held(gate, 'backup')).toBe(0);
    expect(gate.reservations.requestCount).toBe(0);
  });

  it("is refused by the step profile's budget, and the hold stays where it was", () => {
    const { gate, input } = setup();
    const first = input({ estimatedInputTokens: 1_000_000 });
    expect(gate.check(first)).toBeNull();
    const step = {
      ...first,
      ownProfile: false,
      profile: backupOf(first.profile, { perRequestInputCredits: 1 }),
      estimatedInputTokens: 1_000_000,
    };
    expect(gate.admitStep(step)?.errorClass).toBe('budget_exceeded');
    expect(held(gate, 'work')).toBe(2);
    expect(held(gate, 'backup')).toBe(0);
  });

  it("is refused while the step profile's key was rejected (its auth breaker is open), whatever the main profile's state", () => {
    const { gate, input } = setup();
    const first = input();
    expect(gate.check(first)).toBeNull();
    rejectBackupKey(gate);
    expect(gate.admitStep({ ...first, ownProfile: false, profile: backupOf(first.profile) })).toMatchObject({
      status: 403,
      errorClass: 'circuit_open',
    });
    gate.resetAuthBreaker('backup');
    expect(gate.admitStep({ ...first, ownProfile: false, profile: backupOf(first.profile) })).toBeNull();
  });

  it("does not ask the request's own profile's breaker again: its probe may be this very request", () => {
    const { gate, input, spend, advance } = setup();
    spend(null, 401);
    advance(30_000);
    const first = input();
    // This request is the half-open probe; its own next model on the same profile must not be refused by it.
    expect(gate.check(first)).toBeNull();
    expect(gate.admitStep({ ...first, ownProfile: true, upstreamModel: 'gpt-y' })).toBeNull();
    expect(gate.admitStep({ ...first, ownProfile: false, upstreamModel: 'gpt-y' })?.errorClass).toBe('circuit_open');
  });

  it("a step left for the next one answers its profile's probe: that profile's own clients are not refused for the whole cooldown", () => {
    const { gate, input, advance } = setup();
    const first = input();
    expect(gate.check(first)).toBeNull();
    const backup = backupOf(first.profile);
    rejectBackupKey(gate);
    advance(30_000);
    // The probe goes to this request's step on the backup, which then fails with a 503.
    expect(gate.admitStep({ ...first, ownProfile: false, profile: backup })).toBeNull();
    expect(gate.check(input({ profile: backup }))?.errorClass).toBe('circuit_open');
    gate.stepLeft('backup');
    expect(gate.check(input({ profile: backup }))).toBeNull();
  });

  it("a token count that arrives after the hold moved does not cut it to the first profile's prices", () => {
    const { gate, input } = setup();
    const first = input({ estimatedInputTokens: 2_000_000 });
    expect(gate.check(first)).toBeNull();
    expect(gate.admitStep({ ...first, ownProfile: false, profile: backupOf(first.profile), estimatedInputTokens: 1_000_000 })).toBeNull();
    expect(held(gate, 'backup')).toBe(4);
    // The count of the first profile's request (1M tokens, 2 credits there) comes back late.
    gate.refineHold({ ...first, estimatedInputTokens: 1_000_000 });
    expect(held(gate, 'backup')).toBe(4);
    // Still held where it was, a count refines it as before.
    const second = input({ estimatedInputTokens: 2_000_000 });
    expect(gate.check(second)).toBeNull();
    gate.refineHold({ ...second, estimatedInputTokens: 1_000_000 });
    expect(held(gate, 'work')).toBe(2);
  });
});
