import { audioCostOf, inputCostOf, outputCostOf, priceOfRequest, pricesAnything, unitsCostOf } from './cost.ts';
import type { LedgerGap } from '../contracts/log.ts';
import type { Budget, ModelPrice, Profile } from '../contracts/profile.ts';
import type { PromptCacheWrites } from '../contracts/usage.ts';
import type {
  ClientIdentity,
  LocalRefusal,
  SpendCheckInput,
  SpendGate,
  SpendOutcome,
  SpendSoFar,
  StepCheckInput,
} from '../contracts/ports.ts';
import { AuthCircuitBreaker, type AuthCircuitBreakerOptions } from './authCircuitBreaker.ts';
import { decideBudget, type BudgetOwner, type UnpricedModel } from './budgetDecision.ts';
import { ANONYMOUS_CLIENT, BurstGuard, type BurstGuardSettings, type ClientPause } from './burstGuard.ts';
import { InFlightReservations, type PricedLater } from './inFlightReservations.ts';
import type { CommandHint } from '../contracts/cli.ts';
import type { SpendLedger, SpendScope } from './spendLedger.ts';

export interface SpendGateDeps {
  ledger: SpendLedger;
  /** The client token's budget from the config (read from memory, never from disk per request). */
  clientBudget(clientName: string): Budget | undefined;
  /**
   * The profile as configured now (read from memory), for a resend's caps; undefined where it is not in
   * the config (gone, or a profile of this run only): the request's own is used.
   */
  profileNow?: (profileId: string) => Profile | undefined;
  nowMs?: () => number;
  /** Spend the log lost and could not account for: caps whose period holds it refuse (the log's ledgerGap). */
  ledgerGap?: (nowMs: number) => LedgerGap | null;
  burstGuard?: BurstGuardSettings;
  authBreaker?: Partial<AuthCircuitBreakerOptions>;
  /** How the refusals name this Airlock in the commands they suggest (required: a plain default would name another Airlock). */
  commandHint: CommandHint;
}

/** The spend gate plus the controls the window, tray and CLI need. */
export interface SpendGateControl extends SpendGate {
  resumeClient(clientName: string): boolean;
  pausedClients(): ClientPause[];
  /** Call when a profile's key changes. */
  resetAuthBreaker(profileId: string): void;
  readonly ledger: SpendLedger;
  readonly reservations: InFlightReservations<SpendCheckInput>;
}

/**
 * Combines budgets, the burst guard and the auth circuit breaker. Everything is in memory: a check
 * costs a few map look-ups and a scan of the profile's price table, never I/O. Checks without side
 * effects run first, so a request refused by a budget does not consume the breaker's probe.
 */
export function createSpendGate(deps: SpendGateDeps): SpendGateControl {
  const nowMs = deps.nowMs ?? Date.now;
  const { commandHint } = deps;
  const burstGuard = new BurstGuard(deps.burstGuard, commandHint);
  const authBreaker = new AuthCircuitBreaker(deps.authBreaker);
  const { ledger } = deps;
  const reservations = new InFlightReservations(priceLater);
  /**
   * The burst window each admitted request counts in, until it ends: a running stream's spend so far
   * is told by its id. With it, its input's estimate when it was sent, which its running count leaves out.
   */
  const burstKeys = new Map<string, { burstKey: string; inputCredits: number }>();

  function check(input: SpendCheckInput, apiKey?: string): LocalRefusal | null {
    const atMs = nowMs();
    const burstKey = input.identity.tokenName ?? ANONYMOUS_CLIENT;
    // No cap on the profile or the client: no budget can refuse, so their totals are not gathered.
    const capped = needsInputEstimate(input.identity, input.profile);
    const scopes = capped ? scopesOf(input) : null;
    const upfront = upfrontOf(input, capped);
    const refusal =
      burstGuard.pausedRefusal(burstKey) ??
      (scopes === null ? null : budgetRefusal(input, scopes, upfront, atMs)) ??
      burstGuard.admit(burstKey, atMs) ??
      breakerRefusal(input, atMs, apiKey);
    if (refusal === null) {
      hold(input, scopes, upfront, capped);
      burstKeys.set(input.requestId, { burstKey, inputCredits: 0 });
    }
    return refusal;
  }

  /** The profile's auth breaker; a closed one (nearly always) is passed without making the refusal's key fix. */
  function breakerRefusal(input: SpendCheckInput, atMs: number, apiKey: string | undefined): LocalRefusal | null {
    if (authBreaker.stateOf(input.profile.id).state === 'closed') return null;
    const keyFix = { profileName: input.profile.name, keyFromEnvironment: input.keyFromEnvironment === true, command: commandHint.command };
    return authBreaker.admit(input.profile.id, atMs, keyFix, apiKey);
  }

  /**
   * An admitted request holds the most it can cost until it ends: its input estimate, any per-call
   * price, and the output its stated limit allows. Other requests are checked against the hold, so
   * parallel streams together cross a cap by no more than one request alone could.
   */
  function hold(input: SpendCheckInput, scopes: SpendScope[] | null, upfront: Upfront, capped: boolean): void {
    const credits = heldCredits(upfront);
    if (credits !== null) reservations.reserve(input.requestId, scopes ?? scopesOf(input), credits);
    // Without a cap nothing reads the hold yet: the input itself is kept (it holds no key), priced when a cap set while the request runs does.
    else if (!capped) reservations.reserveLater(input.requestId, input);
  }

  /** A request admitted without a cap, priced as an admission under one would have: its input at the plan's cheap bound. */
  function priceLater(input: SpendCheckInput): PricedLater {
    const { inputSource, inputBoundOf } = input;
    const boundTokens =
      input.estimatedInputTokens ?? (inputSource !== undefined && inputBoundOf !== undefined ? inputBoundOf(inputSource) : null);
    const priced = boundTokens === input.estimatedInputTokens ? input : { ...input, estimatedInputTokens: boundTokens };
    return { scopes: scopesOf(input), credits: heldCredits(upfrontOf(priced, true)) };
  }

  function budgetRefusal(input: SpendCheckInput, scopes: SpendScope[], upfront: Upfront, atMs: number): LocalRefusal | null {
    const owners = budgetOwners(input, scopes, atMs);
    return decideBudget({
      owners,
      estimatedInputCredits: upfront.inputCredits,
      perCallCredits: upfront.perCallCredits,
      audioCredits: upfront.audioCredits,
      unitsCredits: upfront.unitsCredits,
      ledgerGap: gapAt(owners, atMs),
      unpricedModel: unpricedModelOf(input, upfront.price),
    });
  }

  function budgetOwners(input: SpendCheckInput, scopes: SpendScope[], atMs: number): BudgetOwner[] {
    return scopes.map((scope) => ({
      kind: scope.kind,
      name: scope.kind === 'profile' ? scope.profileId : scope.clientName,
      budget: scope.kind === 'profile' ? input.profile.budget : deps.clientBudget(scope.clientName),
      totals: ledger.totals(scope, atMs),
      inFlightCredits: reservations.reservedCredits(scope),
    }));
  }

  /** Only a daily or monthly cap depends on the ledger: without one the gap is not looked up. */
  function gapAt(owners: readonly BudgetOwner[], atMs: number): { gap: LedgerGap; nowMs: number } | null {
    if (!owners.some((owner) => hasPeriodCap(owner.budget))) return null;
    const gap = deps.ledgerGap?.(atMs) ?? null;
    return gap === null ? null : { gap, nowMs: atMs };
  }

  function recordOutcome(outcome: SpendOutcome): void {
    const clientName = outcome.identity.tokenName;
    reservations.release(outcome.requestId);
    const { profileId, costCredits, leftSpend } = outcome;
    ledger.record({ profileId, clientName, costCredits, atMs: outcome.startedAtMs, ...(leftSpend ? { leftSpend } : {}) });
    burstKeys.delete(outcome.requestId);
    burstGuard.recordCredits(clientName ?? ANONYMOUS_CLIENT, outcome.costCredits, outcome.atMs, outcome.requestId);
    // The outcome itself: the breaker reads its profile, status, key and time, and keeps none of it.
    authBreaker.recordUpstreamOutcome(outcome);
  }

  /**
   * Whether the caps admit the request at this input estimate. An unpriced model's refusal does not
   * depend on it: counting the input with the tokenizer first would only delay it (check refuses it).
   */
  function budgetsAdmit(input: SpendCheckInput): boolean {
    const scopes = scopesOf(input);
    const refusal = budgetRefusal(input, scopes, upfrontOf(input, true), nowMs());
    return refusal === null || refusal.errorClass === 'unpriced_model';
  }

  /**
   * A fallback step on `input.profile`: its budgets (without the request's own hold, which moves
   * with it, but beside the runs of the step left it may be billed) and, for another profile, its auth breaker (the request's own passed at admission, and
   * may be this very request's probe). Admitted, the request's hold moves to the step's profile at
   * the step's prices, so concurrent requests see the spend where it will land; refused, it stays.
   * The burst guard is the client's, already passed at admission, whatever profile answers.
   */
  function admitStep(input: StepCheckInput, apiKey?: string): LocalRefusal | null {
    const atMs = nowMs();
    const scopes = scopesOf(input);
    const held = reservations.take(input.requestId);
    // Runs the gateway may bill on the step left were that profile's and client's: they stay on those
    // caps until the request ends, held before the check, so a step on the same profile or for the same
    // client is checked beside them rather than where they leave no room.
    const leftRuns = held?.resent ? reservations.keepLeftRuns(input.requestId, held.scopes, held.resent.runsCredits) : null;
    const capped = needsInputEstimate(input.identity, input.profile);
    const upfront = upfrontOf(input, capped);
    const refusal =
      (capped ? budgetRefusal(input, scopes, upfront, atMs) : null) ?? (input.ownProfile ? null : breakerRefusal(input, atMs, apiKey));
    if (refusal !== null) {
      if (leftRuns !== null) reservations.dropLeftRuns(input.requestId, leftRuns);
      if (held !== null) reservations.reserve(input.requestId, held.scopes, held.credits, held.resent);
      return refusal;
    }
    hold(input, scopes, upfront, capped);
    return null;
  }

  function admitResend(input: SpendCheckInput, runsBefore: number): LocalRefusal | null {
    if (!needsInputEstimate(input.identity, input.profile)) return null;
    const upfront = upfrontOf(input, true);
    // Each run is billed its stated video seconds or characters again, as its per-call price.
    const runCredits = (upfront.inputCredits ?? 0) + (upfront.perCallCredits ?? 0) + (upfront.unitsCredits ?? 0);
    if (runCredits === 0) return null;
    const atMs = nowMs();
    const scopes = scopesOf(input);
    // Checked as a request is, against the others' holds: its own output never against itself.
    const held = reservations.take(input.requestId);
    const owners = budgetOwners(input, scopes, atMs);
    const refusal = decideBudget({
      owners,
      estimatedInputCredits: upfront.inputCredits === null ? null : upfront.inputCredits * (runsBefore + 1),
      perCallCredits: upfront.perCallCredits === null ? null : upfront.perCallCredits * (runsBefore + 1),
      audioCredits: null,
      unitsCredits: upfront.unitsCredits === null ? null : upfront.unitsCredits * (runsBefore + 1),
      ledgerGap: gapAt(owners, atMs),
    });
    // The runs before may be billed whatever is decided here: the hold counts them from now on.
    const grown = (heldCredits(upfront) ?? 0) + runCredits * runsBefore;
    // Admitted, the new run counts among the step's runs too (a fallback after it leaves them all held).
    const runsCredits = runCredits * (refusal === null ? runsBefore + 1 : runsBefore);
    const resent = {
      floorCredits: Math.max(grown, held?.resent?.floorCredits ?? 0),
      runsCredits: Math.max(runsCredits, held?.resent?.runsCredits ?? 0),
    };
    reservations.reserve(input.requestId, held?.scopes ?? scopes, Math.max(grown, held?.credits ?? 0), resent);
    return refusal;
  }

  /**
   * A resend goes out later than its admission: the user may have lowered, set or removed the
   * profile's caps since, and means the new ones for a request still being retried.
   */
  function withCapsNow(profile: Profile): Profile {
    const now = deps.profileNow?.(profile.id);
    return now === undefined || now.budget === profile.budget ? profile : { ...profile, budget: now.budget };
  }

  /**
   * A running request's estimated spend so far (its `progress`): counted by the burst guard as it
   * grows, once the gateway is answering: its output. Its input (the estimate made when it was sent,
   * before any answer) counts with its cost at the end: a pause is sticky, a gateway that refuses it
   * (a 401, a 429) bills nothing, and the estimate (the body's bytes / 3 at the input price) is up to
   * ten times what a prompt-cache read bills, paid every turn of a long agent session.
   */
  function spentSoFar(requestId: string, estimate: SpendSoFar): void {
    const running = burstKeys.get(requestId);
    if (running === undefined || estimate.costCredits === null) return;
    if (estimate.usage.outputTokens === 0) running.inputCredits = estimate.costCredits;
    else burstGuard.spentSoFar(running.burstKey, requestId, estimate.costCredits - running.inputCredits, nowMs());
  }

  /** A step that failed and was left for the next one: not a rejected key, so a probe it carried has its answer. */
  function stepLeft(profileId: string): void {
    authBreaker.recordUpstreamOutcome({ profileId, status: 0, keyRejected: false, atMs: nowMs() });
  }

  function refineHold(input: SpendCheckInput): void {
    // A hold a fallback step moved is priced by that step; a count at the first profile's prices would cut it.
    if (!reservations.heldOn(input.requestId, { kind: 'profile', profileId: input.profile.id })) return;
    const upfront = upfrontOf(input, true);
    if (upfront.inputCredits !== null) reservations.shrink(input.requestId, heldCredits(upfront) ?? 0);
  }

  function needsInputEstimate(identity: ClientIdentity, profile: Profile): boolean {
    return hasCap(profile.budget) || (identity.tokenName !== null && hasCap(deps.clientBudget(identity.tokenName)));
  }

  return {
    needsInputEstimate,
    budgetsAdmit,
    check,
    admitStep,
    admitResend,
    withCapsNow,
    spentSoFar,
    stepLeft,
    refineHold,
    recordOutcome,
    resumeClient: (clientName) => burstGuard.resume(clientName),
    pausedClients: () => burstGuard.pausedClients(),
    resetAuthBreaker: (profileId) => authBreaker.reset(profileId),
    ledger,
    reservations,
  };
}

function hasCap(budget: Budget | undefined): boolean {
  return (
    budget !== undefined &&
    (budget.dailyCredits !== undefined || budget.monthlyCredits !== undefined || budget.perRequestInputCredits !== undefined)
  );
}

function hasPeriodCap(budget: Budget | undefined): boolean {
  return budget !== undefined && (budget.dailyCredits !== undefined || budget.monthlyCredits !== undefined);
}

/**
 * The model a request runs where its profile prices nothing of it (looked up only where a cap applies),
 * or prices it by a unit the request does not state (a video's seconds a relay's request leaves to its
 * gateway): either way no cap could count what it costs.
 */
function unpricedModelOf(input: SpendCheckInput, price: ModelPrice | undefined): UnpricedModel | null {
  if (input.runsModel !== true || input.upstreamModel === null) return null;
  const units = input.billedUnits ?? null;
  const unit = units?.videoSeconds !== undefined ? 'video seconds' : units?.speechCharacters !== undefined ? 'speech characters' : 'tokens';
  const unpriced = { model: input.upstreamModel, profileName: input.profile.id, unit } as const;
  if (!pricesAnything(price)) return { ...unpriced, unstated: null };
  if (!pricesUnits(price) || unitsCostOf(units, price, 1) !== null) return null;
  return {
    ...unpriced,
    unstated: price.perVideoSecond !== undefined && units?.videoSeconds === undefined ? 'video seconds' : 'speech characters',
  };
}

function pricesUnits(price: ModelPrice | undefined): price is ModelPrice {
  return price !== undefined && (price.perVideoSecond !== undefined || price.perMillionCharacters !== undefined);
}

/** The profile first, then the client token: the first cap that refuses is the one named. */
function scopesOf(input: SpendCheckInput): SpendScope[] {
  const scopes: SpendScope[] = [{ kind: 'profile', profileId: input.profile.id }];
  const clientName = input.identity.tokenName;
  if (clientName !== null) scopes.push({ kind: 'client', clientName });
  return scopes;
}

/** What a request commits before its answer, at its profile's prices. */
interface Upfront {
  /** The request's price, looked up once where a cap applies (the unpriced check reads it, not the table again); none in NOTHING_UPFRONT, which no cap reads. */
  price: ModelPrice | undefined;
  inputCredits: number | null;
  /** A per-call price (an image or video creation's whole cost); only where a cap reads it. */
  perCallCredits: number | null;
  /** An upload's audio at a price per audio minute (whisper-1), when its header gives its length; only where a cap reads it. */
  audioCredits: number | null;
  /** The same from a size-based bound (compressed audio): held, never checked against its own request, as an output limit. */
  audioBoundCredits: number | null;
  /** The video seconds or speech characters the body states, at a price per second or per 1M characters; only where a cap reads it. */
  unitsCredits: number | null;
  /** The output its stated limit allows, at the output price; only where a cap reads it. Held, never checked against its own request. */
  outputCredits: number | null;
}

/** Shared, never written: a request without a cap or an estimate makes no Upfront of its own. */
const NOTHING_UPFRONT: Readonly<Upfront> = Object.freeze({
  price: undefined,
  inputCredits: null,
  perCallCredits: null,
  audioCredits: null,
  audioBoundCredits: null,
  unitsCredits: null,
  outputCredits: null,
});

function heldCredits({
  inputCredits,
  perCallCredits,
  audioCredits,
  audioBoundCredits,
  unitsCredits,
  outputCredits,
}: Upfront): number | null {
  const audio = audioCredits ?? audioBoundCredits;
  if (inputCredits === null && perCallCredits === null && audio === null && unitsCredits === null && outputCredits === null) return null;
  return (inputCredits ?? 0) + (perCallCredits ?? 0) + (audio ?? 0) + (unitsCredits ?? 0) + (outputCredits ?? 0);
}

/** The price table is looked up once, and only when something reads the result. */
function upfrontOf(input: SpendCheckInput, capped: boolean): Upfront {
  if (input.estimatedInputTokens === null && !capped) return NOTHING_UPFRONT;
  const price = priceOfRequest(input.profile.prices, input);
  const multiplier = input.profile.priceMultiplier;
  const audio = input.uploadAudio ?? null;
  const audioCredits = capped && audio !== null ? audioCostOf(audio.seconds, price, multiplier) : null;
  return {
    price,
    inputCredits:
      input.estimatedInputTokens === null ? null : inputCostOf(input.estimatedInputTokens, price, multiplier, cacheWrites(input, price)),
    perCallCredits: capped && price?.perCall !== undefined ? price.perCall * multiplier * (input.callsBound ?? 1) : null,
    audioCredits: audio?.exact === true ? audioCredits : null,
    audioBoundCredits: audio?.exact === false ? audioCredits : null,
    unitsCredits: capped && pricesUnits(price) ? unitsCostOf(input.billedUnits ?? null, price, multiplier) : null,
    outputCredits: capped && input.outputTokensBound !== null ? outputCostOf(input.outputTokensBound, price, multiplier) : null,
  };
}

/** The prompt-cache writes the request asks for, looked for only where its input has a price to count them at. */
function cacheWrites(input: SpendCheckInput, price: ModelPrice | undefined): PromptCacheWrites {
  const { inputSource, cacheWritesOf } = input;
  if (price?.inputPer1M === undefined || inputSource === undefined || cacheWritesOf === undefined) return 'none';
  return cacheWritesOf(inputSource);
}
