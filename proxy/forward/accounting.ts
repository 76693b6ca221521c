import { costOf, priceOfRequest } from '../spend/cost.ts';
import { routeFor } from '../protocols/registry.ts';
import { statedUsageIn } from '../protocols/statedUsage.ts';
import { byteEstimateTokens, inputTokensUpperBound, TOKENIZE_LIMIT_CHARS } from '../spend/estimate.ts';
import { tokenEstimator } from '../spend/tokenEstimator.ts';
import type { Profile } from '../contracts/profile.ts';
import type { PromptCacheWrites, TokenUsage } from '../contracts/usage.ts';
import { promptCacheWritesIn } from '../protocols/cacheControlMarkers.ts';
import { OutputTally, writtenInAnswer, type SignedThinkingSize } from './outputTally.ts';
import type { ExchangePlan } from './plan.ts';
import type { ProgressEstimate } from './progressTick.ts';
import type { RequestTrace } from './trace.ts';
import type { TraceAccounting } from './traceShapes.ts';
import { jsonUnderStreamLabel } from './upstreamBody.ts';
import { withUnstatedRuns, type RunEstimate, type UnstatedRun } from './unstatedRuns.ts';

const NOTHING_WRITTEN = new OutputTally();

/** How texts are counted: by the tokenizer's thread, or by their bytes at once (a deliberate over-count). */
interface TextCounting {
  textTokens: (text: string) => Promise<number>;
  chatInputTokens: (plan: ExchangePlan) => Promise<number>;
}

const TOKENIZER_COUNTING: TextCounting = {
  textTokens: (text) => tokenEstimator.textTokens(text),
  chatInputTokens: (plan) => tokenEstimator.chatInputTokens(plan.body ?? [], plan.byteLength),
};

const BYTE_COUNTING: TextCounting = {
  textTokens: (text) => Promise.resolve(byteEstimateTokens(Buffer.byteLength(text))),
  chatInputTokens: (plan) => Promise.resolve(byteEstimateTokens(plan.byteLength)),
};

/**
 * What the model wrote has its texts tokenized, or past the tokenizer's limit their bytes counted;
 * output with no text (a Messages `redacted_thinking` block's data, a thinking signature) is counted
 * from its decoded bytes at the rate used wherever text is not tokenized: tokenizing its base64 would
 * count about a token per byte, some four times what a text of that size holds.
 */
async function estimateOutputTokens(tally: OutputTally, counting: TextCounting): Promise<number> {
  const { answerText, otherText, textBytes, opaqueBytes, signedThinking } = tally.written();
  const textTokens =
    textBytes === null ? [counting.textTokens(answerText), counting.textTokens(otherText)] : [byteEstimateTokens(textBytes)];
  const counts = await Promise.all([...textTokens, ...signedThinking.map(signedBeyondVisible(textBytes !== null, counting))]);
  return counts.reduce((sum, tokens) => sum + tokens, byteEstimateTokens(opaqueBytes));
}

/**
 * A signed thinking block counts as the larger of its visible thinking (counted with the other text)
 * and its signature at the byte rate: what the signature holds beyond what is shown. Claude 4's
 * summary or omitted thinking counts as its signature; Claude 3.7's full thinking is not counted twice.
 */
function signedBeyondVisible(pastTokenizeLimit: boolean, counting: TextCounting): (block: SignedThinkingSize) => Promise<number> {
  return async ({ visibleThinking, visibleBytes, signatureBytes }) => {
    const visibleTokens = pastTokenizeLimit ? byteEstimateTokens(visibleBytes) : await counting.textTokens(visibleThinking);
    return Math.max(0, byteEstimateTokens(signatureBytes) - visibleTokens);
  };
}

/**
 * The input estimate without the tokenizer: final where the tokenizer is not used, otherwise an
 * upper bound of its count (`countRefines`), enough for a budget that admits the request anyway.
 */
export function quickInputEstimate(plan: ExchangePlan): { tokens: number | null; countRefines: boolean } {
  if (tokenizerCountsInput(plan)) return { tokens: plan.inputTokensBound ?? inputTokensUpperBound(sentChatBody(plan)), countRefines: true };
  if (bytesCountInput(plan)) return { tokens: byteEstimateTokens(plan.byteLength), countRefines: false };
  return { tokens: null, countRefines: false };
}

/**
 * The input bound a request admitted without a cap is held at if a cap set while it runs asks
 * (SpendCheckInput.inputBoundOf): the plan's quick estimate, the same an admission under a cap uses.
 */
export function quickInputBound(plan: object): number | null {
  // Given only as SpendCheckInput.inputBoundOf, always beside the request's own plan as its source.
  return quickInputEstimate(plan as ExchangePlan).tokens;
}

/** Per plan, found once: a capped request's hold is priced several times (admission, its background count, a resend). */
const cacheWritesByPlan = new WeakMap<object, PromptCacheWrites>();

/**
 * The prompt-cache writes a request's sent body asks for (SpendCheckInput.cacheWritesOf). A
 * translated body has none (translation drops the markers). A body still arriving is never held by
 * a cap at admission (earlyForward.ts); one a cap priced later is read as far as it came.
 */
export function planCacheWrites(source: object): PromptCacheWrites {
  const known = cacheWritesByPlan.get(source);
  if (known !== undefined) return known;
  // Given only as SpendCheckInput.cacheWritesOf, always beside the request's own plan as its source.
  const { body, textBody } = source as ExchangePlan;
  const writes = body === null || !textBody ? 'none' : promptCacheWritesIn(body);
  cacheWritesByPlan.set(source, writes);
  return writes;
}

export async function estimateInputTokens(plan: ExchangePlan, counting = TOKENIZER_COUNTING): Promise<number | null> {
  if (tokenizerCountsInput(plan)) return counting.chatInputTokens(plan);
  if (bytesCountInput(plan)) return byteEstimateTokens(plan.byteLength);
  return null;
}

/** A chat body Airlock parsed, small enough for the tokenizer to count its input (TOKENIZE_LIMIT_CHARS). */
function tokenizerCountsInput(plan: ExchangePlan): plan is ExchangePlan & { body: Buffer[] } {
  return plan.chatJson && plan.body !== null && plan.byteLength <= TOKENIZE_LIMIT_CHARS;
}

/**
 * The chat body parsed again from its bytes, where planning found no bound: only when a cap that did
 * not apply at planning applies now (its settings changed meanwhile), or a refused effort's resend
 * brought the body under the tokenizer's limit.
 */
function sentChatBody(plan: ExchangePlan & { body: Buffer[] }): unknown {
  return JSON.parse(Buffer.concat(plan.body, plan.byteLength).toString('utf8'));
}

/** Whether anything of the input can be counted, found without counting it. */
function inputCountable(plan: ExchangePlan): boolean {
  return tokenizerCountsInput(plan) || bytesCountInput(plan);
}

/** A model's JSON request: its bytes bound its input tokens. An upload's audio or image bytes are no tokens of any count. */
function bytesCountInput(plan: Pick<ExchangePlan, 'textBody' | 'byteLength' | 'upstreamModel'>): boolean {
  return plan.textBody && plan.byteLength > 0 && plan.upstreamModel !== null;
}

/**
 * What the model wrote: a stream's as its observer reported it, else a protocol's whole answer as it
 * was read (relay.ts), else a passed-through answer (a legacy completion) from the log's copy.
 */
function answeredOutput(trace: RequestTrace): OutputTally {
  const written = trace.outputWritten;
  if (written !== null) return written;
  const body = trace.responseBody.toBuffer();
  if (!body) return NOTHING_WRITTEN;
  try {
    // One JSON answer may come under the event-stream label, `data: [DONE]` after it: its text is still what the model wrote.
    return writtenInAnswer(JSON.parse(jsonUnderStreamLabel(body)));
  } catch {
    return NOTHING_WRITTEN;
  }
}

/**
 * What a stream has used so far, without the tokenizer (it runs every second per stream): the
 * input as the body's bytes / 3 and the output as its text's, both over-counts on the side that
 * keeps budgets safe. It stands in the in-flight row until the request ends, so a crash leaves
 * an estimate instead of no spend at all.
 */
export function streamProgressEstimate(
  plan: Pick<ExchangePlan, 'byteLength' | 'upstreamModel' | 'routedFrom' | 'textBody'>,
  profile: Pick<Profile, 'prices' | 'priceMultiplier'>,
): ProgressEstimate {
  const inputTokens = bytesCountInput(plan) ? byteEstimateTokens(plan.byteLength) : 0;
  const price = priceOfRequest(profile.prices, plan);
  return (outputBytes) => {
    const usage = { inputTokens, outputTokens: byteEstimateTokens(outputBytes) };
    return { usage, costCredits: costOf(usage, price, profile.priceMultiplier).costCredits };
  };
}

/**
 * Usage as reported, or, when a model answered without reporting it (or broke off mid-stream,
 * when the gateway may still charge), a tokenizer estimate marked as such; then its cost. Only an
 * estimate waits (for the tokenizer's thread): a reported usage, or none, is priced at once.
 * An answer that was only an error the gateway declared is never estimated: nothing was answered.
 */
export function accountFor(trace: RequestTrace, plan: ExchangePlan, profile: Profile): TraceAccounting | Promise<TraceAccounting> {
  const answered = accountForAnswer(trace, plan, profile);
  const runs = trace.attempts.unstated;
  if (runs.length === 0) return answered;
  // Attempts the gateway had and may bill, with no usage stated: each counts its input, as its hold did.
  return Promise.all([answered, Promise.all(runs.map(runEstimate))]).then(([accounting, estimates]) =>
    withUnstatedRuns(accounting, estimates, profile.id),
  );
}

/** One such attempt's input, at its own step's input (and per-call) price. */
async function runEstimate(run: UnstatedRun): Promise<RunEstimate> {
  const inputTokens = await estimateInputTokens(run.plan);
  const usage = inputTokens === null ? null : { inputTokens, outputTokens: 0 };
  const price = priceOfRequest(run.profile.prices, run.plan);
  const { costCredits } = costOf(usage, price, run.profile.priceMultiplier, 1, run.plan.billedUnits);
  return { inputTokens, costCredits, profileId: run.profile.id };
}

/**
 * The usage a translated client is told where the gateway stated none (streamRelay.ts): the row's
 * estimate (as above) while the tokenizer's thread runs, a count that takes milliseconds; else
 * counted by bytes at once, an over-count: loading the tokenizer (0.3-0.5 s, again after its idle
 * stop) would hold the client's end, and its agent's next turn, for a figure it only sizes its context by.
 */
export async function answerUsageForClient(trace: RequestTrace, plan: ExchangePlan, profile: Profile): Promise<TokenUsage | null> {
  const counting = tokenEstimator.running ? TOKENIZER_COUNTING : BYTE_COUNTING;
  return (await accountForAnswer(trace, plan, profile, counting)).usage;
}

function accountForAnswer(
  trace: RequestTrace,
  plan: ExchangePlan,
  profile: Profile,
  counting = TOKENIZER_COUNTING,
): TraceAccounting | Promise<TraceAccounting> {
  const usage = trace.usage;
  const answeredSuccess = (trace.status > 0 && trace.status < 400) || trace.successFailure === 'brokeOff';
  // A count (Anthropic's count_tokens) runs no model: one that broke off is no more billed than one that answered.
  const reachedModel =
    trace.ttfbMs !== null &&
    answeredSuccess &&
    plan.upstreamModel !== null &&
    routeFor(plan.upstreamPath, plan.method).endpoint !== 'count';
  const output = !usage && reachedModel ? answeredOutput(trace) : NOTHING_WRITTEN;
  // An error the gateway declared (a 200 holding only an error) before any answer: billed only at the usage it reported.
  const calls = trace.billedCalls;
  if (usage || !reachedModel || (trace.successFailure === 'declared' && output.empty))
    return priced(usage, usage ? 'reported' : null, plan, profile, calls);
  // Nothing of the request or its answer can be counted (an upload's audio, a transcript billed by its seconds):
  // no usage is made up, so the cost is a per-call price or unknown, never a count of bytes or zero.
  if (output.empty && !inputCountable(plan)) return priced(null, null, plan, profile, calls, true);
  const stated = statedStreamUsage(trace, plan);
  if (stated !== null) {
    // The gateway stated the input (and its cache reads and writes) before the stream broke: only the output is a guess.
    return estimateOutputTokens(output, counting).then((outputTokens) =>
      priced({ ...stated, outputTokens: Math.max(outputTokens, stated.outputTokens) }, 'estimated', plan, profile, calls),
    );
  }
  return Promise.all([estimateInputTokens(plan, counting), estimateOutputTokens(output, counting)]).then(([inputTokens, outputTokens]) =>
    priced({ inputTokens: inputTokens ?? 0, outputTokens }, 'estimated', plan, profile, calls),
  );
}

/** What a stream that ended without its final usage stated before (message_start's counts, a running count). */
function statedStreamUsage(trace: RequestTrace, plan: ExchangePlan): TokenUsage | null {
  if (!trace.responseHeaders['content-type']?.includes('text/event-stream')) return null;
  const captured = trace.responseBody.toBuffer();
  return captured === null ? null : statedUsageIn(routeFor(plan.upstreamPath, plan.method).adapter, captured);
}

function priced(
  usage: TokenUsage | null,
  usageSource: TraceAccounting['usageSource'],
  plan: ExchangePlan,
  profile: Profile,
  calls: number,
  /** A model answered though no usage is known: a per-call price still applies. Without usage otherwise, nothing ran. */
  answered = usage !== null,
): TraceAccounting {
  const price = priceOfRequest(profile.prices, plan);
  const { costCredits } = answered ? costOf(usage, price, profile.priceMultiplier, calls, plan.billedUnits) : { costCredits: null };
  return { usage, usageSource, costCredits };
}
