import { unstatedInputNote, type ProfileSpend } from '../contracts/log.ts';
import type { Profile } from '../contracts/profile.ts';
import type { ExchangePlan } from './plan.ts';
import type { TraceAccounting } from './traceShapes.ts';
import { gaveUpWaiting, mayHaveExecuted, type UpstreamAttempt } from './upstreamExecution.ts';

/**
 * Whether an ended attempt may be billed although no answer states its usage: it called a model
 * (a model list, a file's download run none, and are priced at nothing), the gateway had the
 * request (upstreamExecution.ts) and then no answer came (the client left, a timeout, a reset), or
 * only its timeout. Providers run a prompt as soon as they have it and bill a request cancelled
 * before its first token: Novita bills a 499, new-api bills its prompt estimate on `client_gone`
 * (QuantumNous/new-api#4167), Bedrock bills a request whose client left (BerriAI/litellm#13245).
 * A success is priced by its own usage, or its estimate (accounting.ts); a 4xx ran nothing.
 */
export function billedWithoutUsage(attempt: UpstreamAttempt, plan: Pick<ExchangePlan, 'upstreamModel'>): boolean {
  if (plan.upstreamModel === null || !mayHaveExecuted(attempt)) return false;
  return !attempt.answered || gaveUpWaiting(attempt.status);
}

/** One such attempt, priced on its own fallback step's model and profile. */
export interface UnstatedRun {
  plan: ExchangePlan;
  profile: Profile;
}

/** What one such attempt is taken to cost: its input (null when its bytes are no tokens), at its input price. */
export interface RunEstimate {
  inputTokens: number | null;
  costCredits: number | null;
  /** The profile it ran on: a fallback step's may be another than the one answering. */
  profileId: string;
}

/**
 * The answer's accounting with the attempts that may be billed unstated: their estimated input
 * counts in the cost (so toward the caps), labelled in a note. Without an answer's usage the row's
 * usage is their input, marked estimated; with one (a resend answered) it stays as the gateway
 * stated it, and only the cost grows. A cost no attempt could price stays unknown, never 0. The
 * note says what was counted: the input, or else a per-call price; with neither, the row is the
 * answer's alone and says nothing it did not count.
 */
export function withUnstatedRuns(answered: TraceAccounting, runs: readonly RunEstimate[], answeringProfileId: string): TraceAccounting {
  const accounted = withRunCosts(answered, runs);
  const leftSpend = spendOnOtherProfiles(runs, answeringProfileId);
  return leftSpend.length === 0 ? accounted : { ...accounted, leftSpend };
}

/**
 * The priced runs on profiles other than the answering one, summed per profile: each profile's caps
 * and spend count its own runs, where the row (one profile) names the answering one.
 */
function spendOnOtherProfiles(runs: readonly RunEstimate[], answeringProfileId: string): ProfileSpend[] {
  const spend: ProfileSpend[] = [];
  for (const { profileId, costCredits } of runs) {
    if (costCredits === null || costCredits <= 0 || profileId === answeringProfileId) continue;
    const known = spend.find((entry) => entry.profileId === profileId);
    if (known === undefined) spend.push({ profileId, costCredits });
    else known.costCredits += costCredits;
  }
  return spend;
}

function withRunCosts(answered: TraceAccounting, runs: readonly RunEstimate[]): TraceAccounting {
  const counted = runs.filter((run) => run.inputTokens !== null);
  const priced = runs.filter((run) => run.costCredits !== null);
  if (counted.length === 0 && priced.length === 0) return answered;
  const runCredits = priced.reduce((sum, run) => sum + (run.costCredits ?? 0), 0);
  const costCredits =
    priced.length === 0 ? answered.costCredits : answered.costCredits === null ? runCredits : answered.costCredits + runCredits;
  const attempts = runs.length === 1 ? 'an attempt' : `${runs.length} attempts`;
  const note =
    counted.length > 0
      ? unstatedInputNote(attempts)
      : `May be billed: the gateway had the request in ${attempts} that stated no usage, counted at its per-call price.`;
  if (answered.usage !== null || counted.length === 0) return { ...answered, costCredits, note };
  const inputTokens = counted.reduce((sum, run) => sum + (run.inputTokens ?? 0), 0);
  return { usage: { inputTokens, outputTokens: 0 }, usageSource: 'estimated', costCredits, note };
}
