import { expect } from 'vitest';
import type { ClientProtocol } from '../../../proxy/contracts/usage.ts';
import type { Exchange } from './exchanges.ts';

export interface TokenPrice {
  model: string;
  inputPer1M: number;
  outputPer1M: number;
}

const TOKENS_PER_MILLION = 1_000_000;
/** Credits are stored rounded to 6 decimals: compare to within a few millionths. */
const CREDIT_DIGITS_COMPARED = 5;

/**
 * Every exchange was translated from the client's protocol to Chat Completions for `price.model`,
 * succeeded, and was billed at that price from the usage the gateway reported.
 */
export function expectBilledTranslations(exchanges: readonly Exchange[], protocol: ClientProtocol, price: TokenPrice): void {
  expect(exchanges.length).toBeGreaterThan(0);
  for (const { start, end } of exchanges) {
    expect(start).toMatchObject({ protocol, protocolMode: 'translate', upstreamModel: price.model });
    expect(end).toMatchObject({ status: 200, errorClass: null, usageSource: 'reported' });
    const inputTokens = end.usage?.inputTokens ?? 0;
    const outputTokens = end.usage?.outputTokens ?? 0;
    expect(inputTokens).toBeGreaterThan(0);
    expect(outputTokens).toBeGreaterThan(0);
    const expectedCredits = (inputTokens * price.inputPer1M + outputTokens * price.outputPer1M) / TOKENS_PER_MILLION;
    expect(end.costCredits).toBeCloseTo(expectedCredits, CREDIT_DIGITS_COMPARED);
  }
}
