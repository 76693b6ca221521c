import { createSpendGate, type SpendGateDeps } from '../../../proxy/spend/spendGate.ts';
import { SpendLedger } from '../../../proxy/spend/spendLedger.ts';
import { profileSchema, type Budget, type ProfileInput } from '../../../proxy/contracts/profile.ts';
import type { SpendCheckInput } from '../../../proxy/contracts/ports.ts';
import { PLAIN_HINT } from '../../../proxy/contracts/cli.ts';

/** A spend gate over one profile (gpt-x: 2 credits per 1M input, 8 per 1M output) and its check inputs. */
export const NOW = new Date(2026, 4, 10, 12).getTime();

export function setup(
  options: { profile?: Partial<ProfileInput>; clientBudgets?: Record<string, Budget>; deps?: Partial<SpendGateDeps> } = {},
) {
  let nowMs = NOW;
  const profile = profileSchema.parse({
    id: 'work',
    name: 'Work',
    baseUrl: 'https://gateway.example/v1',
    prices: [{ model: 'gpt-x', inputPer1M: 2, outputPer1M: 8 }],
    ...options.profile,
  });
  const gate = createSpendGate({
    commandHint: PLAIN_HINT,
    ledger: new SpendLedger(),
    clientBudget: (name) => options.clientBudgets?.[name],
    nowMs: () => nowMs,
    // Budget tests record large spends; the credit burst limit has its own tests below.
    burstGuard: { maxCredits: 1000 },
    ...options.deps,
  });
  let requestCount = 0;
  const nextRequestId = (): string => {
    requestCount += 1;
    return `alk_${requestCount}`;
  };
  const input = (overrides: Partial<SpendCheckInput> = {}): SpendCheckInput => ({
    requestId: nextRequestId(),
    identity: { tokenName: 'cursor', pinnedProfileId: null },
    profile,
    method: 'POST',
    upstreamPath: '/chat/completions',
    upstreamModel: 'gpt-x',
    estimatedInputTokens: 1000,
    outputTokensBound: null,
    ...overrides,
  });
  const spend = (costCredits: number | null, status = 200, tokenName: string | null = 'cursor') =>
    gate.recordOutcome({
      requestId: 'alk_recorded',
      identity: { tokenName, pinnedProfileId: null },
      profileId: 'work',
      status,
      keyRejected: status === 401,
      costCredits,
      startedAtMs: nowMs,
      atMs: nowMs,
    });
  return { gate, input, spend, advance: (ms: number) => (nowMs += ms) };
}
