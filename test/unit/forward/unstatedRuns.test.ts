import { describe, expect, it } from 'vitest';
import { billedWithoutUsage, withUnstatedRuns } from '../../../proxy/forward/unstatedRuns.ts';
import type { TraceAccounting } from '../../../proxy/forward/traceShapes.ts';
import type { UpstreamAttempt } from '../../../proxy/forward/upstreamExecution.ts';

/**
 * Which ended attempts the gateway may bill although no answer of it states usage. Providers run a
 * prompt as soon as they have it and bill a request cancelled before its first token (Novita's 499
 * rule, novita.ai/docs/guides/llm-billing; new-api bills the prompt estimate on client_gone,
 * QuantumNous/new-api#4167; Bedrock behind LiteLLM bills a disconnected request whole, BerriAI/litellm#13245).
 */
const MODEL_CALL = { upstreamModel: 'gpt-4o-mini' };

describe('an attempt the gateway may bill with no usage stated', () => {
  it.each<{ name: string; attempt: UpstreamAttempt; billed: boolean; plan?: { upstreamModel: string | null } }>([
    { name: 'connect refused or timed out: never reached the gateway', attempt: { reachedSocket: false, answered: false }, billed: false },
    { name: 'the client left before the headers, the prompt sent', attempt: { reachedSocket: true, answered: false }, billed: true },
    { name: "Airlock's idle timeout before the first byte", attempt: { reachedSocket: true, answered: false }, billed: true },
    {
      name: 'a success: its own usage (or estimate) prices it',
      attempt: { reachedSocket: true, answered: true, status: 200 },
      billed: false,
    },
    { name: 'a 400: the gateway refused it', attempt: { reachedSocket: true, answered: true, status: 400 }, billed: false },
    { name: 'a 401: the key was refused', attempt: { reachedSocket: true, answered: true, status: 401 }, billed: false },
    { name: 'a 429: nothing ran', attempt: { reachedSocket: true, answered: true, status: 429 }, billed: false },
    { name: "a 500: the gateway's own failure", attempt: { reachedSocket: true, answered: true, status: 500 }, billed: false },
    { name: 'a 502: no valid answer from its provider', attempt: { reachedSocket: true, answered: true, status: 502 }, billed: false },
    { name: 'a 503: no provider took it', attempt: { reachedSocket: true, answered: true, status: 503 }, billed: false },
    {
      name: 'a 504: the gateway gave up waiting on its provider',
      attempt: { reachedSocket: true, answered: true, status: 504 },
      billed: true,
    },
    { name: "Cloudflare's 524: the origin ran past 100 s", attempt: { reachedSocket: true, answered: true, status: 524 }, billed: true },
    {
      name: 'a model list (no model called) left unanswered: nothing to bill',
      attempt: { reachedSocket: true, answered: false },
      plan: { upstreamModel: null },
      billed: false,
    },
    {
      name: "a model list answered with the gateway's 504: nothing to bill",
      attempt: { reachedSocket: true, answered: true, status: 504 },
      plan: { upstreamModel: null },
      billed: false,
    },
  ])('$name: $billed', ({ attempt, billed, plan = MODEL_CALL }) => {
    expect(billedWithoutUsage(attempt, plan)).toBe(billed);
  });
});

const INPUT_COUNTED_NOTE = /^May be billed: the gateway had the prompt .* counted at the prompt's estimated input\.$/;
const NO_ANSWER: TraceAccounting = { usage: null, usageSource: null, costCredits: null };
const REPORTED: TraceAccounting = { usage: { inputTokens: 100, outputTokens: 20 }, usageSource: 'reported', costCredits: 0.5 };

describe('the accounting with the attempts that stated no usage', () => {
  it.each<{
    name: string;
    answered: TraceAccounting;
    runs: { inputTokens: number | null; costCredits: number | null }[];
    expected: TraceAccounting;
    /** The row's note, or none when nothing was counted. */
    note?: RegExp | null;
  }>([
    { name: 'none: the answer alone', answered: REPORTED, runs: [], expected: REPORTED },
    {
      name: 'no answer, one attempt: its input as an estimate',
      answered: NO_ANSWER,
      runs: [{ inputTokens: 1000, costCredits: 0.003 }],
      expected: { usage: { inputTokens: 1000, outputTokens: 0 }, usageSource: 'estimated', costCredits: 0.003 },
    },
    {
      name: 'no answer, three attempts: each input counted',
      answered: NO_ANSWER,
      runs: [
        { inputTokens: 1000, costCredits: 0.003 },
        { inputTokens: 1000, costCredits: 0.003 },
        { inputTokens: 1000, costCredits: 0.003 },
      ],
      expected: { usage: { inputTokens: 3000, outputTokens: 0 }, usageSource: 'estimated', costCredits: 0.009 },
    },
    {
      name: 'no answer, unpriced: tokens kept, cost unknown (never 0)',
      answered: NO_ANSWER,
      runs: [{ inputTokens: 1000, costCredits: null }],
      expected: { usage: { inputTokens: 1000, outputTokens: 0 }, usageSource: 'estimated', costCredits: null },
    },
    {
      name: 'no answer, an upload whose input cannot be counted, priced per call',
      answered: NO_ANSWER,
      runs: [{ inputTokens: null, costCredits: 0.04 }],
      expected: { usage: null, usageSource: null, costCredits: 0.04 },
      note: /^May be billed: .* counted at its per-call price\.$/,
    },
    {
      name: 'no answer, an upload neither counted nor priced: no cost, and no note claiming one',
      answered: NO_ANSWER,
      runs: [{ inputTokens: null, costCredits: null }],
      expected: NO_ANSWER,
      note: null,
    },
    {
      name: 'a retry answered with usage: its usage stays, the earlier input adds to the cost',
      answered: REPORTED,
      runs: [{ inputTokens: 1000, costCredits: 0.003 }],
      expected: { usage: REPORTED.usage, usageSource: 'reported', costCredits: 0.503 },
    },
  ])('$name', ({ answered, runs, expected, note = INPUT_COUNTED_NOTE }) => {
    const accounting = withUnstatedRuns(
      answered,
      runs.map((run) => ({ ...run, profileId: 'work' })),
      'work',
    );
    expect(accounting.leftSpend).toBeUndefined();
    expect(accounting.usage).toEqual(expected.usage);
    expect(accounting.usageSource).toBe(expected.usageSource);
    if (expected.costCredits == null) expect(accounting.costCredits).toBeNull();
    else expect(accounting.costCredits).toBeCloseTo(expected.costCredits, 12);
    if (runs.length === 0 || note === null) expect(accounting.note).toBeUndefined();
    else expect(accounting.note).toMatch(note);
  });
});

describe('withUnstatedRuns: runs on profiles a fallback left', () => {
  it.each<{
    name: string;
    runs: { profileId: string; costCredits: number | null }[];
    leftSpend: { profileId: string; costCredits: number }[] | undefined;
  }>([
    { name: 'all on the answering profile: nothing left', runs: [{ profileId: 'backup', costCredits: 1 }], leftSpend: undefined },
    {
      name: "one left profile's runs, summed",
      runs: [
        { profileId: 'main', costCredits: 1 },
        { profileId: 'main', costCredits: 0.5 },
        { profileId: 'backup', costCredits: 2 },
      ],
      leftSpend: [{ profileId: 'main', costCredits: 1.5 }],
    },
    {
      name: 'two left profiles, each its own',
      runs: [
        { profileId: 'main', costCredits: 1 },
        { profileId: 'spare', costCredits: 0.25 },
      ],
      leftSpend: [
        { profileId: 'main', costCredits: 1 },
        { profileId: 'spare', costCredits: 0.25 },
      ],
    },
    { name: 'an unpriced run moves nothing', runs: [{ profileId: 'main', costCredits: null }], leftSpend: undefined },
  ])('$name', ({ runs, leftSpend }) => {
    const answered: TraceAccounting = { usage: { inputTokens: 10, outputTokens: 10 }, usageSource: 'reported', costCredits: 3 };
    const accounting = withUnstatedRuns(
      answered,
      runs.map((run) => ({ ...run, inputTokens: 1000 })),
      'backup',
    );
    expect(accounting.leftSpend).toEqual(leftSpend);
    // The row's cost is the whole request's, whichever profile each part is counted for.
    const runsCredits = runs.reduce((sum, run) => sum + (run.costCredits ?? 0), 0);
    expect(accounting.costCredits).toBeCloseTo(3 + runsCredits, 12);
  });
});
