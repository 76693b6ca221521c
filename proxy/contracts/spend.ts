import type { MoneyAmount } from './status.ts';

/** The control API's spend view (GET /spend): totals, per day, hour, model, client, profile and session, budgets. */

export type SpendRange = 'today' | '7d' | '30d';

export interface SpendRow {
  key: string;
  requests: number;
  inputTokens: number;
  outputTokens: number;
  costCredits: number;
  /** Requests with no price: counted, never costed as 0. */
  unpricedRequests: number;
  /** What the gateway stated it charged, in its own unit, beside the credits (SpendByDayRow.gatewayCost); null when none did. */
  gatewayCost: number | null;
  /** Gateways of several profiles stated charges here, each in its own unit: `gatewayCost` is null, never their sum. */
  gatewayCostMixed: boolean;
  /** Answered requests whose gateway stated no charge: the sum above is partial while any are. */
  unstatedRequests: number;
}

export interface SpendDay {
  /** Local date, YYYY-MM-DD. */
  day: string;
  /** Credits per model id. */
  creditsByModel: Record<string, number>;
  /** The day's sum of what the gateway stated it charged, in its own unit; null when none did. */
  gatewayCost: number | null;
  /** As SpendRow.gatewayCostMixed: several profiles' gateways stated charges that day, so no sum is given. */
  gatewayCostMixed: boolean;
  /** The day's answered requests whose gateway stated no charge. */
  unstatedRequests: number;
}

/** A request a cap refuses gets 402, not 429: every client retries a 429 (Claude Code ten times), and a budget does not refill in seconds. */
export const BUDGET_REFUSAL_STATUS = 402;

/** The shares of a cap at which the window and the tray alert, not only when it is reached. */
export const BUDGET_ALERT_PERCENTS = [50, 80, 100] as const;
export type BudgetAlertPercent = (typeof BUDGET_ALERT_PERCENTS)[number];

export interface BudgetProgress {
  scope: 'profile' | 'client';
  /** Profile id or client token name. */
  subject: string;
  period: 'daily' | 'monthly';
  capCredits: number;
  spentCredits: number;
  reached: boolean;
  /** The highest alert share the spend has passed this period; null below the first. */
  alertPercent: BudgetAlertPercent | null;
}

export interface TopUpTier {
  minCredits: number;
  discountPercent: number;
}

/** GET /spend?range= */
export interface SpendResponse {
  range: SpendRange;
  totals: { today: MoneyAmount; last7Days: MoneyAmount; last30Days: MoneyAmount };
  perDay: SpendDay[];
  /** Range 'today' only (else empty): each hour of today so far, `day` being "HH:00". */
  perHour: SpendDay[];
  perModel: SpendRow[];
  perClient: SpendRow[];
  perProfile: SpendRow[];
  /** By the agent's session id; requests whose client sent none are one row, keyed NO_SESSION_KEY. */
  perSession: SpendRow[];
  budgets: BudgetProgress[];
  rates: { cnyPerCredit: number; usdPerCreditApprox: number; topUpTiers: TopUpTier[] };
}
