import { afterEach, describe, expect, it } from 'vitest';
import { profileSchema, type Budget, type Profile } from '../../../proxy/contracts/profile.ts';
import { estimateChatInputTokens } from '../../../proxy/spend/estimate.ts';
import { createSpendGate } from '../../../proxy/spend/spendGate.ts';
import { SpendLedger } from '../../../proxy/spend/spendLedger.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { PLAIN_HINT } from '../../../proxy/contracts/cli.ts';

/**
 * Airlock's own resends after a run the gateway may bill (a keyed request's 504) ask the caps of the
 * profile as it is configured when the resend goes, not as it was when the request was admitted: a
 * user who lowers or sets a cap while an agent's request is being retried means it for that request too.
 */
const PRICE = { model: 'gpt-4o-mini', inputPer1M: 1, outputPer1M: 4 };
const BODY = chatBody({ messages: [{ role: 'user', content: 'Describe how a tide table is computed, step by step. '.repeat(40) }] });
const INPUT_CREDITS = (estimateChatInputTokens(JSON.parse(BODY)) * PRICE.inputPer1M) / 1e6;

let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

/** A proxy whose profile's budget becomes `editedBudget` once the gateway has the first run (the user's edit while it runs). */
async function startEditedWhileRunning(admittedBudget: Budget | undefined, editedBudget: Budget | undefined): Promise<Harness> {
  const retry = { maxRetries: 2, maxRetryAfterMs: 8000 };
  let edited: Profile | undefined;
  const h = await startHarness({
    profile: { prices: [PRICE], retry, ...(admittedBudget ? { budget: admittedBudget } : {}) },
    spendGate: createSpendGate({
      commandHint: PLAIN_HINT,
      ledger: new SpendLedger(),
      clientBudget: () => undefined,
      profileNow: (profileId) => (profileId === h.profile.id && h.simulator.received.length > 0 ? edited : undefined),
    }),
  });
  edited = profileSchema.parse({ ...h.profile, budget: editedBudget });
  harness = h;
  h.simulator.script(...Array.from({ length: 4 }, () => ({ kind: 'status' as const, status: 504 })));
  return h;
}

describe("a resend after a run the gateway may bill asks the profile's caps as they are now", () => {
  it.each([
    ['a cap lowered while the request runs', { dailyCredits: INPUT_CREDITS * 10 }, { dailyCredits: INPUT_CREDITS * 1.5 }],
    ['a cap set on a profile that had none at admission', undefined, { dailyCredits: INPUT_CREDITS * 1.5 }],
  ])('%s: the run past it is not sent', async (_name, admittedBudget, editedBudget) => {
    const h = await startEditedWhileRunning(admittedBudget, editedBudget);
    const ended = h.nextEnd();
    const headers = { ...JSON_HEADERS, 'idempotency-key': 'tide-table' };
    expect((await rawRequest(`${h.proxy.url}/v1/chat/completions`, { method: 'POST', headers, body: BODY })).status).toBe(504);
    const end = await ended;

    expect(h.simulator.received).toHaveLength(1);
    expect(end.logNotes?.join(' ')).toMatch(/Not resent: another run would cross the daily budget cap/);
  });

  it('a cap removed while the request runs: the resends go on', async () => {
    const h = await startEditedWhileRunning({ dailyCredits: INPUT_CREDITS * 1.5 }, undefined);
    const ended = h.nextEnd();
    const headers = { ...JSON_HEADERS, 'idempotency-key': 'tide-table-2' };
    expect((await rawRequest(`${h.proxy.url}/v1/chat/completions`, { method: 'POST', headers, body: BODY })).status).toBe(504);
    await ended;

    expect(h.simulator.received).toHaveLength(3);
  });
});
