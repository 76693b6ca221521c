import { formatCredits } from '../contracts/amounts.ts';
import type { LedgerGap } from '../contracts/log.ts';
import type { Budget } from '../contracts/profile.ts';
import type { LocalRefusal } from '../contracts/ports.ts';
import { PARSE_ON_LOOP_MAX_BYTES } from '../contracts/defaults.ts';
import { BUDGET_REFUSAL_STATUS } from '../contracts/spend.ts';
import { startOfLocalDayMs, startOfLocalMonthMs } from '../core/localPeriods.ts';
import type { SpendTotals } from './spendLedger.ts';

/** Which cap refused a request; sent as `x-airlock-budget` so clients and the window can tell. */
export type BudgetCapKind = 'daily' | 'monthly' | 'per-request';
export const BUDGET_HEADER = 'x-airlock-budget';
/** The code of a refusal for a model without a price under a cap. */
export const UNPRICED_MODEL_CODE = 'unpriced_model' as const;

export interface BudgetOwner {
  kind: 'profile' | 'client';
  /** Profile id or client token name, as the user knows it. */
  name: string;
  budget: Budget | undefined;
  totals: SpendTotals;
  /** Credits held by this owner's admitted requests that have not ended yet: input estimate, per-call price, output limit. */
  inFlightCredits: number;
}

export interface BudgetDecisionInput {
  /** Profile first, then the client token: the first cap that refuses is the one named. */
  owners: readonly BudgetOwner[];
  /** Estimated input tokens × input price × multiplier; null when unknown (unpriced or unparsed body). */
  estimatedInputCredits: number | null;
  /** A per-call price (an image or video creation) times the multiplier: known exactly before sending; null when none. */
  perCallCredits?: number | null;
  /** An upload's audio at a price per audio minute, its length read from its header; null when none or only bounded by its size. */
  audioCredits?: number | null;
  /** The video seconds or speech characters the body states, at their price (cost.ts unitsCostOf); null when none. */
  unitsCredits?: number | null;
  /** Spend missing from the ledger (the log could not record it), and the time of the check. */
  ledgerGap?: { gap: LedgerGap; nowMs: number } | null;
  /**
   * The model the request runs when its profile has no price for it (cost.ts pricesAnything), or one by a unit the request
   * does not state (a per-second price, no seconds); null when priced or no model runs.
   */
  unpricedModel?: UnpricedModel | null;
}

/** A model run where no cap can count its cost, and what its fix names. */
export interface UnpricedModel {
  model: string;
  profileName: string;
  /** Priced by a unit this request states none of that Airlock can read; null when the profile prices nothing of the model. */
  unstated: 'video seconds' | 'speech characters' | null;
  /** The price field the request is billed by, for the example in the message. */
  unit: 'tokens' | 'video seconds' | 'speech characters';
}

/**
 * A cap refuses when it is already reached, or when this request's estimated input would cross it.
 * Its own output is not counted: a stated limit is often ten times what is written (Claude Code
 * asks for 32k tokens on every turn), and counting it would close the last stretch of every cap.
 * Requests still in flight count with everything they hold, their output limit included, so parallel
 * requests together cross a cap by no more than one request alone could.
 */
export function decideBudget(input: BudgetDecisionInput): LocalRefusal | null {
  const blind = input.ledgerGap ? ledgerGapRefusal(input.owners, input.ledgerGap.gap, input.ledgerGap.nowMs) : null;
  if (blind) return blind;
  const estimate = input.estimatedInputCredits;
  const upfront = upfrontCredits(estimate, input.perCallCredits ?? null, input.audioCredits ?? null, input.unitsCredits ?? null);
  for (const owner of input.owners) {
    const budget = owner.budget;
    if (!budget) continue;
    if (input.unpricedModel) {
      const refusal = unpricedRefusal(owner, budget, input.unpricedModel);
      if (refusal !== null) return refusal;
    }
    if (budget.perRequestInputCredits !== undefined && estimate !== null && !Number.isFinite(estimate)) {
      return uncountable(
        owner,
        'per-request',
        `per-request input cap of ${formatCredits(budget.perRequestInputCredits)} credits for ${describe(owner)}`,
      );
    }
    if (budget.perRequestInputCredits !== undefined && estimate !== null && estimate > budget.perRequestInputCredits) {
      return budgetRefusal(
        owner,
        'per-request',
        `per-request input cap of ${formatCredits(budget.perRequestInputCredits)} credits for ${describe(owner)} exceeded: this request's input is estimated at ${formatCredits(estimate)} credits`,
        'perRequestInputCredits',
      );
    }
    const periods = [
      { kind: 'daily', cap: budget.dailyCredits, spent: owner.totals.dayCredits, when: 'today', field: 'dailyCredits' },
      { kind: 'monthly', cap: budget.monthlyCredits, spent: owner.totals.monthCredits, when: 'this month', field: 'monthlyCredits' },
    ] as const;
    for (const period of periods) {
      if (period.cap === undefined) continue;
      const capText = `${period.kind} cap of ${formatCredits(period.cap)} credits for ${describe(owner)}`;
      const inFlight = owner.inFlightCredits;
      const committed = period.spent + inFlight;
      // NaN compares false with every cap, which let every request through: a cap that cannot be checked refuses.
      if (!Number.isFinite(committed + (upfront?.credits ?? 0))) return uncountable(owner, period.kind, capText);
      const inFlightText = inFlight > 0 ? ` and ${formatCredits(inFlight)} held for requests still running` : '';
      const spentText = `${formatCredits(period.spent)} spent ${period.when}${inFlightText}`;
      if (period.spent >= period.cap) {
        return budgetRefusal(owner, period.kind, `${capText} reached: ${spentText}`, period.field);
      }
      // Without an upfront figure (an upload bounded only by its size, an unpriced estimate) others' holds alone can fill the cap.
      const wouldCross = upfront !== null ? committed + upfront.credits > period.cap : inFlight > 0 && committed >= period.cap;
      if (wouldCross) {
        const upfrontText = upfront === null ? '' : `, and ${upfront.text}`;
        return budgetRefusal(owner, period.kind, `${capText} would be crossed: ${spentText}${upfrontText}`, period.field);
      }
    }
  }
  return null;
}

/**
 * What the request commits before its answer: the input estimate and a per-call price. A creation
 * priced per call has no input price, and counting only the input let it cross a cap unchecked.
 */
function upfrontCredits(
  inputCredits: number | null,
  perCallCredits: number | null,
  audioCredits: number | null,
  unitsCredits: number | null,
): { credits: number; text: string } | null {
  const parts: string[] = [];
  if (inputCredits !== null) parts.push(`this request's input is estimated at ${formatCredits(inputCredits)} credits`);
  if (perCallCredits !== null) parts.push(`its price per call is ${formatCredits(perCallCredits)} credits`);
  if (audioCredits !== null) parts.push(`its audio costs ${formatCredits(audioCredits)} credits`);
  if (unitsCredits !== null) parts.push(`the video seconds or characters it asks for cost ${formatCredits(unitsCredits)} credits`);
  if (parts.length === 0) return null;
  return { credits: (inputCredits ?? 0) + (perCallCredits ?? 0) + (audioCredits ?? 0) + (unitsCredits ?? 0), text: parts.join(' and ') };
}

/**
 * A model without a price costs what no cap can count: its requests were free to every cap, so an agent
 * on it spent without limit under a daily cap its user trusted. Under any cap of the owner it is refused,
 * naming the model and the fix, as LiteLLM's proxy came to refuse models missing from its cost map where a
 * budget applies (BerriAI/litellm#24949, fixing #24770). A model that costs nothing is priced at 0: that
 * states it, model by model, where a switch allowing every unpriced model would open the cap to any
 * model a route or a typo reaches. Profiles and clients without a cap are never asked.
 */
function unpricedRefusal(owner: BudgetOwner, budget: Budget, unpriced: UnpricedModel): LocalRefusal | null {
  const kind: BudgetCapKind | null =
    budget.dailyCredits !== undefined
      ? 'daily'
      : budget.monthlyCredits !== undefined
        ? 'monthly'
        : budget.perRequestInputCredits !== undefined
          ? 'per-request'
          : null;
  if (kind === null) return null;
  const model = JSON.stringify(unpriced.model);
  const cap = `the ${kind} cap for ${describe(owner)} cannot count what it costs`;
  return {
    status: BUDGET_REFUSAL_STATUS,
    errorClass: UNPRICED_MODEL_CODE,
    code: UNPRICED_MODEL_CODE,
    message: `${REFUSED_LOCALLY}${unpriced.unstated === null ? noPriceWords(unpriced, model, cap) : unstatedWords(unpriced.unstated, model, unpriced.profileName, cap)}`,
    headers: { [BUDGET_HEADER]: kind },
  };
}

const PRICE_EXAMPLES: Readonly<Record<UnpricedModel['unit'], string>> = {
  tokens: '"inputPer1M": ..., "outputPer1M": ...',
  'video seconds': '"perVideoSecond": ...',
  'speech characters': '"perMillionCharacters": ...',
};

function noPriceWords(unpriced: UnpricedModel, model: string, cap: string): string {
  return (
    `model ${model} has no price in profile '${unpriced.profileName}' that counts this request, so ${cap}. Add its price on the ` +
    `Profiles screen (Prices) or in airlock.json in the data directory (the profile's prices: {"model": ${model}, ` +
    `${PRICE_EXAMPLES[unpriced.unit]}}; 0 for a model that costs nothing), or remove the cap.`
  );
}

/**
 * A model priced per video second or per character whose request states no length Airlock read (a
 * seconds of 0 or "twelve", a JSON body too large to read here): its price is there, so the fix is
 * the request, not a price.
 */
function unstatedWords(unit: 'video seconds' | 'speech characters', model: string, profileName: string, cap: string): string {
  const unread = `a JSON body over ${PARSE_ON_LOOP_MAX_BYTES / 1024} KB, such as one with an image inline, is not read`;
  const what =
    unit === 'video seconds'
      ? `priced per video second, and this request states no length Airlock can read (its seconds or duration, a number above 0; ${unread})`
      : `priced per 1M characters, and this request states no input text Airlock can read (its input, a string; ${unread})`;
  return `model ${model} is ${what} in profile '${profileName}', so ${cap}. State it in the request, or remove the cap.`;
}

/** How a cap's refusal opens; a resend refused (upstreamAttempts.ts) tells the rest, since its earlier runs were sent. */
export const REFUSED_LOCALLY = 'Airlock refused this request locally (nothing was sent to the gateway): ';

/**
 * A daily or monthly cap whose period holds spend the ledger is missing cannot be checked: the
 * request is refused rather than spent blind. Per-request caps do not depend on the ledger.
 */
function ledgerGapRefusal(owners: readonly BudgetOwner[], gap: LedgerGap, nowMs: number): LocalRefusal | null {
  for (const owner of owners) {
    const budget = owner.budget;
    if (!budget) continue;
    const periods = [
      { kind: 'daily', cap: budget.dailyCredits, startMs: startOfLocalDayMs(nowMs) },
      { kind: 'monthly', cap: budget.monthlyCredits, startMs: startOfLocalMonthMs(nowMs) },
    ] as const;
    for (const period of periods) {
      if (period.cap === undefined || gap.lastLossMs < period.startMs) continue;
      return {
        status: 507,
        errorClass: 'ledger_incomplete',
        code: 'ledger_incomplete',
        message:
          `${REFUSED_LOCALLY}the ${period.kind} cap of ${formatCredits(period.cap)} credits ` +
          `for ${describe(owner)} cannot be checked, because Airlock's record of spend is incomplete. ${gap.reason}`,
        headers: { [BUDGET_HEADER]: period.kind },
      };
    }
  }
  return null;
}

/** A cap whose total, hold or estimate is not a finite number: a price too large for a double made the sum overflow. */
function uncountable(owner: BudgetOwner, kind: BudgetCapKind, capText: string): LocalRefusal {
  return budgetRefusal(owner, kind, `${capText} cannot be checked: the credits counted against it are too large to be a number`, null);
}

function budgetRefusal(owner: BudgetOwner, kind: BudgetCapKind, reason: string, field: keyof Budget | null): LocalRefusal {
  const howToRaise =
    field === null
      ? 'Check the prices and the price multiplier of the profiles this spend was counted on (Profiles screen or airlock.json in the data directory).'
      : owner.kind === 'profile'
        ? `Raise or remove budget.${field} on the Profiles screen or in airlock.json in the data directory.`
        : // No screen or command sets a client token's budget: airlock.json is the one place.
          `Raise or remove budget.${field} of client token '${owner.name}' in airlock.json in the data directory (its entry under clientTokens).`;
  return {
    status: BUDGET_REFUSAL_STATUS,
    errorClass: 'budget_exceeded',
    code: 'budget_exceeded',
    message: `${REFUSED_LOCALLY}${reason}. ${howToRaise}`,
    headers: { [BUDGET_HEADER]: kind },
  };
}

function describe(owner: BudgetOwner): string {
  return owner.kind === 'profile' ? `profile '${owner.name}'` : `client token '${owner.name}'`;
}
