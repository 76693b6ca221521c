import { describe, expect, it } from 'vitest';
import { NOW, setup } from './spendGateSetup.ts';

describe('the output a running request may write is held against caps', () => {
  it('holds the most output a running request may write, so parallel streams cannot overshoot a cap by their output', () => {
    // gpt-x: 2 credits per 1M input, 8 per 1M output. Each request: 0.2 credits of input and at most
    // 2.4 of output (max_tokens 300k), 2.6 held while it runs, of a 5-credit day.
    const { gate, input } = setup({ profile: { budget: { dailyCredits: 5 } } });
    const stream = () => input({ estimatedInputTokens: 100_000, outputTokensBound: 300_000 });
    const running = [stream(), stream()];
    for (const request of running) expect(gate.check(request)).toBeNull();
    expect(gate.check(stream())?.message).toContain('0 spent today and 5.2 held for requests still running');

    // The first ends having written little: what it really cost replaces its whole hold.
    gate.recordOutcome({
      requestId: running[0]?.requestId ?? '',
      identity: { tokenName: 'cursor', pinnedProfileId: null },
      profileId: 'work',
      status: 200,
      keyRejected: false,
      costCredits: 0.3,
      startedAtMs: NOW,
      atMs: NOW,
    });
    expect(gate.check(stream())).toBeNull();
  });

  it("does not refuse a request for its own output bound: only others' running output stands against it", () => {
    // As before any output was held: one request at a time may cross a cap by its own output.
    const { gate, input, spend } = setup({ profile: { budget: { dailyCredits: 5 } } });
    spend(4);
    expect(gate.check(input({ estimatedInputTokens: 100_000, outputTokensBound: 1_000_000 }))).toBeNull();
    expect(gate.reservations.reservedCredits({ kind: 'profile', profileId: 'work' })).toBeCloseTo(8.2, 12);
  });

  it('holds no output for a model without an output price, or a request that states no bound', () => {
    const { gate, input } = setup({
      profile: {
        budget: { dailyCredits: 50 },
        prices: [
          { model: 'gpt-x', inputPer1M: 2 },
          { model: 'gpt-y', inputPer1M: 2, outputPer1M: 8 },
        ],
      },
    });
    expect(gate.check(input({ estimatedInputTokens: 1_000_000, outputTokensBound: 1_000_000 }))).toBeNull();
    expect(gate.check(input({ upstreamModel: 'gpt-y', estimatedInputTokens: 1_000_000, outputTokensBound: null }))).toBeNull();
    expect(gate.reservations.reservedCredits({ kind: 'profile', profileId: 'work' })).toBe(4);
  });

  it('refineHold keeps the output held: a count replaces only the input bound', () => {
    const { gate, input } = setup({ profile: { budget: { dailyCredits: 50 } } });
    const admitted = input({ estimatedInputTokens: 2_000_000, outputTokensBound: 100_000 });
    expect(gate.check(admitted)).toBeNull();
    gate.refineHold({ ...admitted, estimatedInputTokens: 500_000 });
    expect(gate.reservations.reservedCredits({ kind: 'profile', profileId: 'work' })).toBeCloseTo(1.8, 12);
  });
});
