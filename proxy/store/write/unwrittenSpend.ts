import { addGatewayCosts, joinGatewayCostProfiles } from '../../contracts/amounts.ts';
import { localDayName, startOfLocalDayMs } from '../../core/localPeriods.ts';
import {
  emptySpendGroup,
  type LogTotals,
  type RequestLogRow,
  type SpendByDayQuery,
  type SpendByDayRow,
  type SpendSinceQuery,
  type TotalsQuery,
} from '../../contracts/log.ts';

/**
 * The spend of requests whose rows are not in the log database (a full disk), per local day,
 * profile, client and model: what the log's totals and the budgets add to what the database holds,
 * and what a restart reads back from `unwritten-spend.json`. Pure: both threads use it.
 */
export interface SpendEntry extends LogTotals {
  /** Start of the local day the requests started on (the log files a request by its start). */
  dayStartMs: number;
  profileId: string | null;
  clientName: string | null;
  /** The model sent upstream, else the one requested (the log's model column). */
  model: string | null;
  /** What this profile's gateway stated it charged, in its unit (SpendByDayRow.gatewayCost); null when none did. */
  gatewayCost: number | null;
  /** Answered requests (usage reported or estimated) without such a statement, as the log's query counts them. */
  unstatedRequests: number;
}

/** What the log thread tells the main thread about rows it could not write yet. */
export interface UnwrittenState {
  entries: SpendEntry[];
  /** Rows waiting in memory, written as soon as the database takes them again. */
  keptRows: number;
  /** Requests whose rows could not be kept (past the bound, or refused by the database): only their spend is. */
  foldedRequests: number;
  /** Whether `entries` is saved outside the database, so a restart counts it too. */
  saved: boolean;
  /** Why it could not be saved, when it could not. */
  saveError: string | null;
  /** Why the database last refused rows for another cause than space (a damaged file); null on a full disk. */
  refusal: { cause: string; damaged: boolean } | null;
}

const GROUP_SEPARATOR = '\u0000';

function entryKey(entry: Pick<SpendEntry, 'dayStartMs' | 'profileId' | 'clientName' | 'model'>): string {
  return [entry.dayStartMs, entry.profileId ?? '', entry.clientName ?? '', entry.model ?? ''].join(GROUP_SEPARATOR);
}

function emptyEntry(group: Pick<SpendEntry, 'dayStartMs' | 'profileId' | 'clientName' | 'model'>): SpendEntry {
  return {
    ...group,
    requests: 0,
    errors: 0,
    costCredits: 0,
    unpricedRequests: 0,
    inputTokens: 0,
    outputTokens: 0,
    cachedInputTokens: 0,
    reasoningTokens: 0,
    gatewayCost: null,
    unstatedRequests: 0,
  };
}

/** Adds one row to the entries (or, with `sign` -1, takes it away), counted as the log's queries count it. */
export function addRow(entries: Map<string, SpendEntry>, row: RequestLogRow, sign: 1 | -1 = 1): void {
  const group = {
    dayStartMs: startOfLocalDayMs(row.startedAtMs),
    profileId: row.profileId,
    clientName: row.clientName,
    model: row.upstreamModel ?? row.requestedModel,
  };
  const key = entryKey(group);
  const entry = entries.get(key) ?? emptyEntry(group);
  entry.requests += sign;
  if (row.errorClass !== null || (row.status ?? 0) >= 400) entry.errors += sign;
  entry.costCredits += sign * (row.costCredits ?? 0);
  if (row.costCredits === null && row.usageSource !== null) entry.unpricedRequests += sign;
  entry.inputTokens += sign * (row.inputTokens ?? 0);
  entry.outputTokens += sign * (row.outputTokens ?? 0);
  entry.cachedInputTokens += sign * (row.cachedInputTokens ?? 0);
  entry.reasoningTokens += sign * (row.reasoningTokens ?? 0);
  if (row.gatewayCost !== undefined) entry.gatewayCost = addGatewayCosts(entry.gatewayCost, sign * row.gatewayCost);
  else if (row.usageSource !== null) entry.unstatedRequests += sign;
  entries.set(key, entry);
  // A fallback's runs on a profile it left are that profile's spend, as the database's per-profile
  // sums count them (store/read/leftSpend.ts): else a restart or a zone change seeded the caps wrong.
  for (const hop of row.fallbackChain ?? []) {
    if (hop.costCredits === undefined) continue;
    const left = { ...group, profileId: hop.profileId };
    const leftEntry = entries.get(entryKey(left)) ?? emptyEntry(left);
    leftEntry.costCredits += sign * hop.costCredits;
    entry.costCredits -= sign * hop.costCredits;
    entries.set(entryKey(left), leftEntry);
  }
}

/** Adds a whole entry (a folded group) to the entries (or, with `sign` -1, takes it away). */
export function addEntry(entries: Map<string, SpendEntry>, added: SpendEntry, sign: 1 | -1 = 1): void {
  const key = entryKey(added);
  const entry = entries.get(key) ?? emptyEntry(added);
  entry.requests += sign * added.requests;
  entry.errors += sign * added.errors;
  entry.costCredits += sign * added.costCredits;
  entry.unpricedRequests += sign * added.unpricedRequests;
  entry.inputTokens += sign * added.inputTokens;
  entry.outputTokens += sign * added.outputTokens;
  entry.cachedInputTokens += sign * added.cachedInputTokens;
  entry.reasoningTokens += sign * added.reasoningTokens;
  if (added.gatewayCost !== null) entry.gatewayCost = addGatewayCosts(entry.gatewayCost, sign * added.gatewayCost);
  entry.unstatedRequests += sign * added.unstatedRequests;
  entries.set(key, entry);
}

/**
 * Whether an entry's requests fall in a query's time range. Entries are per day, and the log's
 * ranges start at a local day (today, 7 or 30 days, this month): a range that starts inside a day
 * counts that day's entries whole.
 */
function inRange(entry: SpendEntry, fromMs: number, toMs: number): boolean {
  return entry.dayStartMs >= startOfLocalDayMs(fromMs) && entry.dayStartMs < toMs;
}

function matches(entry: SpendEntry, query: { profileId?: string; clientName?: string }): boolean {
  return (
    (query.profileId === undefined || entry.profileId === query.profileId) &&
    (query.clientName === undefined || entry.clientName === query.clientName)
  );
}

export function spendSinceWith(fromDatabase: number, entries: readonly SpendEntry[], query: SpendSinceQuery): number {
  let credits = fromDatabase;
  for (const entry of entries)
    if (inRange(entry, query.sinceMs, Number.POSITIVE_INFINITY) && matches(entry, query)) credits += entry.costCredits;
  return credits;
}

export function totalsWith(fromDatabase: LogTotals, entries: readonly SpendEntry[], query: TotalsQuery): LogTotals {
  const totals = { ...fromDatabase };
  for (const entry of entries) {
    if (!inRange(entry, query.fromMs, query.toMs) || !matches(entry, query)) continue;
    totals.requests += entry.requests;
    totals.errors += entry.errors;
    totals.costCredits += entry.costCredits;
    totals.unpricedRequests += entry.unpricedRequests;
    totals.inputTokens += entry.inputTokens;
    totals.outputTokens += entry.outputTokens;
    totals.cachedInputTokens += entry.cachedInputTokens;
    totals.reasoningTokens += entry.reasoningTokens;
  }
  return totals;
}

/** YYYY-MM-DD of a local day's start, named as the log's spendByDay names it (in the query's fixed offset, if it has one). */
function dayName(dayStartMs: number, utcOffsetMinutes: number | undefined): string {
  if (utcOffsetMinutes === undefined) return localDayName(dayStartMs);
  return new Date(dayStartMs + utcOffsetMinutes * 60_000).toISOString().slice(0, 10);
}

const GROUP_OF = {
  model: (entry: SpendEntry) => entry.model,
  profile: (entry: SpendEntry) => entry.profileId,
  client: (entry: SpendEntry) => entry.clientName,
  // The spend kept for rows the database could not take is summed without sessions: it counts under none.
  session: () => null,
} as const;

export function spendByDayWith(
  fromDatabase: readonly SpendByDayRow[],
  entries: readonly SpendEntry[],
  query: SpendByDayQuery,
): SpendByDayRow[] {
  const rows = fromDatabase.map((row) => ({ ...row }));
  for (const entry of entries) {
    if (!inRange(entry, query.fromMs, query.toMs)) continue;
    const day = dayName(entry.dayStartMs, query.utcOffsetMinutes);
    const group = query.groupBy === null ? null : GROUP_OF[query.groupBy](entry);
    let row = rows.find((candidate) => candidate.day === day && candidate.group === group);
    if (row === undefined) {
      row = emptySpendGroup(day, group);
      rows.push(row);
    }
    row.gatewayCost = addGatewayCosts(row.gatewayCost, entry.gatewayCost);
    if (entry.gatewayCost !== null && entry.profileId !== null) {
      row.gatewayCostProfiles = joinGatewayCostProfiles(row.gatewayCostProfiles, [entry.profileId]);
    }
    row.unstatedRequests += entry.unstatedRequests;
    row.requests += entry.requests;
    row.costCredits += entry.costCredits;
    row.unpricedRequests += entry.unpricedRequests;
    row.inputTokens += entry.inputTokens;
    row.outputTokens += entry.outputTokens;
  }
  return rows.sort((a, b) => a.day.localeCompare(b.day) || (a.group ?? '').localeCompare(b.group ?? ''));
}
