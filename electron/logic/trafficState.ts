import type { ErrorClass } from '../../proxy/contracts/errors.ts';

/**
 * What finished requests tell the tray: today's spend, profiles whose key the gateway rejected,
 * and budgets that refused a request. A key stays "rejected" until a request on that profile
 * succeeds; a budget stays "reached" until the day rolls over or a request on it succeeds.
 */
export interface TrafficState {
  dayStartMs: number;
  todaySpendCredits: number;
  keyRejectedProfileIds: readonly string[];
  /** Profiles whose gateway account said its balance or quota is used up; cleared by a success. */
  quotaExhaustedProfileIds: readonly string[];
  /** Profiles whose budget refused a request; cleared by a success on them or the next day. */
  budgetReachedProfileIds: readonly string[];
}

export interface FinishedRequest {
  profileId: string | null;
  status: number;
  errorClass: ErrorClass | null;
  costCredits: number | null;
}

export function emptyTrafficState(dayStartMs: number): TrafficState {
  return { dayStartMs, todaySpendCredits: 0, keyRejectedProfileIds: [], quotaExhaustedProfileIds: [], budgetReachedProfileIds: [] };
}

function withItem(items: readonly string[], item: string, present: boolean): readonly string[] {
  const has = items.includes(item);
  if (present === has) return items;
  return present ? [...items, item] : items.filter((existing) => existing !== item);
}

/** The request log's spend since a local day's start. */
export type SpentSince = (dayStartMs: number) => number;

/**
 * A new local day starts from the spend the log holds for it, not from 0: after a change of time
 * zone (a flight) the new day may have begun hours ago (core/localZone.ts).
 */
export function rollDay(state: TrafficState, dayStartMs: number, spentSince: SpentSince): TrafficState {
  return dayStartMs === state.dayStartMs
    ? state
    : {
        ...emptyTrafficState(dayStartMs),
        todaySpendCredits: spentSince(dayStartMs),
        keyRejectedProfileIds: state.keyRejectedProfileIds,
        quotaExhaustedProfileIds: state.quotaExhaustedProfileIds,
      };
}

/** `spentSince` is read only when the request is the first of a new day; the request itself is not in the log yet. */
export function applyFinishedRequest(
  previous: TrafficState,
  request: FinishedRequest,
  dayStartMs: number,
  spentSince: SpentSince,
): TrafficState {
  const state = rollDay(previous, dayStartMs, spentSince);
  const todaySpendCredits = state.todaySpendCredits + (request.costCredits ?? 0);
  if (request.profileId === null) return { ...state, todaySpendCredits };
  const succeeded = request.status >= 200 && request.status < 300;
  return {
    dayStartMs: state.dayStartMs,
    todaySpendCredits,
    keyRejectedProfileIds:
      request.errorClass === 'auth'
        ? withItem(state.keyRejectedProfileIds, request.profileId, true)
        : succeeded
          ? withItem(state.keyRejectedProfileIds, request.profileId, false)
          : state.keyRejectedProfileIds,
    quotaExhaustedProfileIds: withItem(
      state.quotaExhaustedProfileIds,
      request.profileId,
      request.errorClass === 'quota_exhausted' || (!succeeded && state.quotaExhaustedProfileIds.includes(request.profileId)),
    ),
    budgetReachedProfileIds:
      request.errorClass === 'budget_exceeded'
        ? withItem(state.budgetReachedProfileIds, request.profileId, true)
        : succeeded
          ? withItem(state.budgetReachedProfileIds, request.profileId, false)
          : state.budgetReachedProfileIds,
  };
}
