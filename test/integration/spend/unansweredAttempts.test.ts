import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { ProfileInput } from '../../../proxy/contracts/profile.ts';
import { estimateChatInputTokens } from '../../../proxy/spend/estimate.ts';
import { createSpendGate } from '../../../proxy/spend/spendGate.ts';
import { SpendLedger } from '../../../proxy/spend/spendLedger.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { PLAIN_HINT } from '../../../proxy/contracts/cli.ts';
import { MAX_TOKENS_REFUSAL } from '../../support/maxTokensRefusal.ts';

/**
 * A request the gateway had whole but never answered with usage: the client gone before the
 * headers, Airlock's idle timeout, the gateway's own 504. Providers run a prompt once they have it
 * and bill a cancelled request's input (novita.ai/docs/guides/llm-billing, 499 billed; new-api
 * bills its prompt estimate on client_gone, QuantumNous/new-api#4167; Bedrock bills a request
 * whose client left, BerriAI/litellm#13245), so its input counts, as an estimate, toward the caps.
 */
const PRICE = { model: 'gpt-4o-mini', inputPer1M: 1, outputPer1M: 4 };
const BODY = chatBody({ messages: [{ role: 'user', content: 'Summarise the design of a lighthouse lens in detail. '.repeat(40) }] });
const INPUT_TOKENS = estimateChatInputTokens(JSON.parse(BODY));
const INPUT_CREDITS = (INPUT_TOKENS * PRICE.inputPer1M) / 1e6;

let harness: Harness | null = null;
let ledger: SpendLedger;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

async function start(profile: Partial<ProfileInput> = {}): Promise<Harness> {
  ledger = new SpendLedger();
  harness = await startHarness({
    profile: { prices: [PRICE], retry: { maxRetries: 0, maxRetryAfterMs: 8000 }, ...profile },
    spendGate: createSpendGate({ commandHint: PLAIN_HINT, ledger, clientBudget: () => undefined }),
  });
  return harness;
}

const send = (h: Harness) => rawRequest(`${h.proxy.url}/v1/chat/completions`, { method: 'POST', headers: JSON_HEADERS, body: BODY });
const spentToday = (): number => ledger.totals({ kind: 'profile', profileId: 'test' }, Date.now()).dayCredits;

describe('a request the gateway had, with no usage ever stated', () => {
  it('the client interrupting before the headers: its input is estimated and counted', async () => {
    const h = await start();
    const held = h.simulator.holdNext('/v1/chat/completions');
    const ended = h.nextEnd();
    const client = request(`${h.proxy.url}/v1/chat/completions`, { method: 'POST', headers: JSON_HEADERS });
    client.on('error', () => undefined);
    client.end(BODY);
    await held.arrived;
    // Already in its in-flight row, so a crash now leaves it counted (crashBeforeHeaders.test.ts).
    const inFlightEstimate = h.events.find((event) => event.type === 'progress');
    expect(inFlightEstimate).toMatchObject({ usage: { outputTokens: 0 } });
    client.destroy();
    const end = await ended;
    held.release();
    expect(end).toMatchObject({ status: 499, errorClass: 'client_aborted', ttfbMs: null, usageSource: 'estimated' });
    expect(end.usage).toEqual({ inputTokens: INPUT_TOKENS, outputTokens: 0 });
    expect(end.costCredits).toBeCloseTo(INPUT_CREDITS, 12);
    expect(end.logNotes?.join(' ')).toMatch(/May be billed: the gateway had the prompt/);
    expect(spentToday()).toBeCloseTo(INPUT_CREDITS, 12);
  });

  it("Airlock's idle timeout before the first byte: its input is estimated and counted", async () => {
    const h = await start({ timeouts: { connectTimeoutMs: 5000, idleTimeoutMs: 1000, totalTimeoutMs: 60_000 } });
    h.simulator.script({ kind: 'hang' });
    const ended = h.nextEnd();
    expect((await send(h)).status).toBe(504);
    const end = await ended;
    expect(end).toMatchObject({ errorClass: 'timeout_idle', usageSource: 'estimated' });
    expect(end.usage).toEqual({ inputTokens: INPUT_TOKENS, outputTokens: 0 });
    expect(end.costCredits).toBeCloseTo(INPUT_CREDITS, 12);
    expect(spentToday()).toBeCloseTo(INPUT_CREDITS, 12);
  });

  it('an idle timeout resent (the client sent an idempotency key) and answered: the answer as reported, plus the first attempt’s input', async () => {
    const h = await start({
      timeouts: { connectTimeoutMs: 5000, idleTimeoutMs: 1000, totalTimeoutMs: 60_000 },
      retry: { maxRetries: 1, maxRetryAfterMs: 8000 },
    });
    h.simulator.script({ kind: 'hang' });
    const ended = h.nextEnd();
    const headers = { ...JSON_HEADERS, 'idempotency-key': 'lighthouse-1' };
    expect((await rawRequest(`${h.proxy.url}/v1/chat/completions`, { method: 'POST', headers, body: BODY })).status).toBe(200);
    const end = await ended;
    expect(h.simulator.received).toHaveLength(2);
    expect(end).toMatchObject({ errorClass: null, retries: 1, usageSource: 'reported' });
    const answered = (end.usage!.inputTokens * PRICE.inputPer1M + end.usage!.outputTokens * PRICE.outputPer1M) / 1e6;
    expect(end.costCredits).toBeCloseTo(answered + INPUT_CREDITS, 12);
    expect(end.logNotes?.join(' ')).toMatch(/May be billed: the gateway had the prompt/);
    expect(spentToday()).toBeCloseTo(answered + INPUT_CREDITS, 12);
  });

  it("the gateway's 504: its input is estimated and counted", async () => {
    const h = await start();
    h.simulator.script({ kind: 'status', status: 504 });
    const ended = h.nextEnd();
    expect((await send(h)).status).toBe(504);
    const end = await ended;
    expect(end).toMatchObject({ usageSource: 'estimated', usage: { inputTokens: INPUT_TOKENS, outputTokens: 0 } });
    expect(end.costCredits).toBeCloseTo(INPUT_CREDITS, 12);
  });
});

describe('a resend after a run the gateway may bill, under a daily cap', () => {
  // A script with an Idempotency-Key gets Airlock's resends after a 504; each run the gateway had may be billed its input.
  it.each([
    ['room for one more run: resent once, then not', 2.5, 2],
    ['no room for another run: not resent', 1.5, 1],
  ])('%s', async (_name, capInInputs, runs) => {
    const h = await start({ budget: { dailyCredits: INPUT_CREDITS * capInInputs }, retry: { maxRetries: 3, maxRetryAfterMs: 8000 } });
    h.simulator.script(...Array.from({ length: 4 }, () => ({ kind: 'status' as const, status: 504 })));
    const ended = h.nextEnd();
    const headers = { ...JSON_HEADERS, 'idempotency-key': 'lighthouse-2' };
    expect((await rawRequest(`${h.proxy.url}/v1/chat/completions`, { method: 'POST', headers, body: BODY })).status).toBe(504);
    const end = await ended;

    expect(h.simulator.received).toHaveLength(runs);
    expect(end.costCredits).toBeCloseTo(INPUT_CREDITS * runs, 12);
    expect(end.logNotes?.join(' ')).toMatch(/Not resent: another run would cross the daily budget cap/);
    expect(spentToday()).toBeLessThanOrEqual(INPUT_CREDITS * capInInputs);
  });
});

describe('a resend after a 400 fixed the request, under a daily cap', () => {
  it('counts the runs before the fix: a fixed request is the same step, its runs may be billed alike', async () => {
    const body = chatBody({ max_tokens: 10, messages: JSON.parse(BODY).messages });
    // Each run's input and its 10 output tokens: room for two and a half runs.
    const runCredits = INPUT_CREDITS + (10 * PRICE.outputPer1M) / 1e6;
    const cap = runCredits * 2.5;
    const h = await start({ budget: { dailyCredits: cap }, retry: { maxRetries: 3, maxRetryAfterMs: 8000 } });
    h.simulator.script(
      { kind: 'status', status: 504 },
      { kind: 'status', status: 400, body: JSON.parse(MAX_TOKENS_REFUSAL.bodyText) },
      ...Array.from({ length: 3 }, () => ({ kind: 'status' as const, status: 504 })),
    );
    const ended = h.nextEnd();
    const headers = { ...JSON_HEADERS, 'idempotency-key': 'lighthouse-fixed' };
    expect((await rawRequest(`${h.proxy.url}/v1/chat/completions`, { method: 'POST', headers, body })).status).toBe(504);
    const end = await ended;

    // 504, the 400 (ran nothing), the fixed request's 504; a third run may be billed, past the cap: not sent.
    expect(h.simulator.received).toHaveLength(3);
    expect(end.logNotes?.join(' ')).toMatch(/Not resent: another run would cross the daily budget cap/);
    expect(spentToday()).toBeLessThanOrEqual(cap);
  });
});

describe('a resend whose cap cannot be checked', () => {
  it('is not sent, and the row says the cap cannot be checked and why, not to raise it', async () => {
    ledger = new SpendLedger();
    // The log lost spend while the first run was at the gateway: the daily cap can no longer be checked.
    const h = await startHarness({
      profile: { prices: [PRICE], budget: { dailyCredits: 100 }, retry: { maxRetries: 3, maxRetryAfterMs: 8000 } },
      spendGate: createSpendGate({
        commandHint: PLAIN_HINT,
        ledger,
        clientBudget: () => undefined,
        ledgerGap: () => (h.simulator.received.length > 0 ? { lastLossMs: Date.now(), reason: 'The disk was full.' } : null),
      }),
    });
    harness = h;
    h.simulator.script(...Array.from({ length: 4 }, () => ({ kind: 'status' as const, status: 504 })));
    const ended = h.nextEnd();
    const headers = { ...JSON_HEADERS, 'idempotency-key': 'lighthouse-gap' };
    expect((await rawRequest(`${h.proxy.url}/v1/chat/completions`, { method: 'POST', headers, body: BODY })).status).toBe(504);
    const notes = (await ended).logNotes?.join(' ') ?? '';

    expect(h.simulator.received).toHaveLength(1);
    expect(notes).toMatch(/Not resent: the daily cap of 100 credits for profile 'test' cannot be checked/);
    expect(notes).toMatch(/The disk was full\./);
    expect(notes).not.toMatch(/Raise the cap|would cross/);
  });
});

describe('a request the gateway never had', () => {
  it('a refused connection costs nothing and says nothing of billing', async () => {
    const h = await start({ baseUrl: 'http://127.0.0.1:1/v1' });
    const ended = h.nextEnd();
    expect((await send(h)).status).toBe(502);
    const end = await ended;
    expect(end).toMatchObject({ usage: null, usageSource: null, costCredits: null });
    expect(end.logNotes ?? []).not.toContainEqual(expect.stringMatching(/May be billed/));
    // Nor did its in-flight row carry an estimate a crash would have counted.
    expect(h.events.filter((event) => event.type === 'progress')).toEqual([]);
    expect(spentToday()).toBe(0);
  });

  it("the gateway's 503 costs nothing", async () => {
    const h = await start();
    h.simulator.script({ kind: 'status', status: 503 });
    const ended = h.nextEnd();
    expect((await send(h)).status).toBe(503);
    expect(await ended).toMatchObject({ usage: null, costCredits: null });
  });
});
