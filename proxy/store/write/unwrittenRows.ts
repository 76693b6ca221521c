import type { RequestLogRow } from '../../contracts/log.ts';
import { newRequestId } from '../../core/requestId.ts';
import { addEntry, addRow, type SpendEntry } from './unwrittenSpend.ts';

/**
 * Rows kept in memory while the database cannot take them (a full disk): about 1 KB each, so the
 * bound holds them to some 20 MB. Past it the oldest finished rows are folded into their spend.
 */
export const MAX_UNWRITTEN_ROWS = 20_000;

/**
 * Rows the log could not write, kept to be written when the database takes them again, and the
 * spend of requests whose rows could not be kept: past MAX_UNWRITTEN_ROWS, or refused by the
 * database for another reason than space. Spend is never dropped; row details past the bound are.
 */
export class UnwrittenRows {
  readonly #maxRows: number;
  /** The latest version of each row, oldest first. */
  readonly #rows = new Map<string, RequestLogRow>();
  readonly #folded = new Map<string, SpendEntry>();
  #foldedRequests = 0;
  /**
   * The in-flight versions in the database of requests whose later rows are kept here: the
   * database already counts the request and that version's cost, so only the difference is unwritten.
   */
  readonly #writtenInFlight = new Map<string, RequestLogRow>();
  /**
   * What spend() returns, kept as rows come and go: recomputing it over up to MAX_UNWRITTEN_ROWS
   * rows at every batch and retry would be the log thread's busiest work on a full disk.
   */
  readonly #spend = new Map<string, SpendEntry>();

  /** `carried`: spend a previous run could not write, read back from its saved record. */
  constructor(maxRows: number, carried: readonly SpendEntry[] = []) {
    this.#maxRows = maxRows;
    this.addFolded(carried);
  }

  /** Spend of requests whose rows were never kept (an earlier run's, or folded before they reached the log thread). */
  addFolded(entries: readonly SpendEntry[]): void {
    for (const entry of entries) {
      addEntry(this.#folded, entry);
      addEntry(this.#spend, entry);
      this.#foldedRequests += entry.requests;
    }
  }

  get isEmpty(): boolean {
    return this.#rows.size === 0 && this.#folded.size === 0;
  }

  get keptRows(): number {
    return this.#rows.size;
  }

  get foldedRequests(): number {
    return this.#foldedRequests;
  }

  /** Keeps these rows (a later version replaces an earlier one), folding the oldest past the bound. */
  keep(rows: readonly RequestLogRow[]): void {
    for (const row of rows) {
      this.#count(row.id, -1);
      this.#rows.delete(row.id);
      this.#rows.set(row.id, row);
      this.#count(row.id, 1);
    }
    if (this.#rows.size > this.#maxRows) this.#foldOldest(this.#rows.size - this.#maxRows);
  }

  /** Keeps only the spend of these rows: the database refused them for good. */
  fold(rows: readonly RequestLogRow[]): void {
    for (const row of rows) {
      this.#count(row.id, -1);
      this.#rows.delete(row.id);
      this.#addUnwritten(this.#folded, row);
      this.#addUnwritten(this.#spend, row);
      this.#writtenInFlight.delete(row.id);
      this.#foldedRequests += 1;
    }
  }

  /** These rows are in the database now, whether they were kept here or written at once. */
  noteWritten(rows: readonly RequestLogRow[]): void {
    for (const row of rows) {
      this.#count(row.id, -1);
      if (row.state === 'in_flight') this.#writtenInFlight.set(row.id, row);
      else this.#writtenInFlight.delete(row.id);
      this.#count(row.id, 1);
    }
  }

  /** The oldest kept rows, to try writing again. */
  oldestRows(limit: number): RequestLogRow[] {
    const rows: RequestLogRow[] = [];
    for (const row of this.#rows.values()) {
      if (rows.length >= limit) break;
      rows.push(row);
    }
    return rows;
  }

  /** These kept rows are in the database now (unless a later version of one came in meanwhile). */
  written(rows: readonly RequestLogRow[]): void {
    for (const row of rows) {
      if (this.#rows.get(row.id) !== row) continue;
      this.#count(row.id, -1);
      this.#rows.delete(row.id);
    }
    this.noteWritten(rows);
  }

  /** Rows standing for the folded requests, one per day, profile, client and model, to write once rows fit again. */
  summaryRows(): RequestLogRow[] {
    return [...this.#folded.values()].map(summaryRowOf);
  }

  /** The summary rows are in the database now. */
  summariesWritten(): void {
    for (const entry of this.#folded.values()) addEntry(this.#spend, entry, -1);
    this.#folded.clear();
    this.#foldedRequests = 0;
  }

  /** Everything not in the database, rows and folded requests alike. */
  spend(): SpendEntry[] {
    for (const [key, entry] of this.#spend) if (isNothing(entry)) this.#spend.delete(key);
    return [...this.#spend.values()].map((entry) => ({ ...entry }));
  }

  /** Adds (or with -1 takes away) what the kept version of a request adds to spend(). */
  #count(id: string, sign: 1 | -1): void {
    const kept = this.#rows.get(id);
    if (kept === undefined) return;
    addRow(this.#spend, kept, sign);
    const written = this.#writtenInFlight.get(id);
    if (written !== undefined) addRow(this.#spend, written, sign === 1 ? -1 : 1);
  }

  /** A row's spend, less that of its in-flight version already in the database. */
  #addUnwritten(entries: Map<string, SpendEntry>, row: RequestLogRow): void {
    addRow(entries, row);
    const written = this.#writtenInFlight.get(row.id);
    if (written !== undefined) addRow(entries, written, -1);
  }

  /** Folds finished rows first: a request in flight gets a later version, which would then count twice. */
  #foldOldest(count: number): void {
    const folded: RequestLogRow[] = [];
    for (const row of this.#rows.values()) {
      if (folded.length >= count) break;
      if (row.state !== 'in_flight') folded.push(row);
    }
    for (const row of this.#rows.values()) {
      if (folded.length >= count) break;
      if (row.state === 'in_flight') folded.push(row);
    }
    this.fold(folded);
  }
}

/** Below this, a cost left after taking rows away is the rounding of the sums, not spend. */
const ROUNDING_CREDITS = 1e-12;

/** An entry whose rows all went: counts back to 0, its cost to a rounding remainder. */
function isNothing(entry: SpendEntry): boolean {
  return (
    entry.requests === 0 &&
    entry.errors === 0 &&
    entry.unpricedRequests === 0 &&
    entry.inputTokens === 0 &&
    entry.outputTokens === 0 &&
    entry.cachedInputTokens === 0 &&
    entry.reasoningTokens === 0 &&
    Math.abs(entry.costCredits) < ROUNDING_CREDITS
  );
}

export const SUMMARY_ROW_PATH = '(requests not written to the log)';

/** A row that holds the spend of requests whose own rows were lost, so every total and budget counts it. */
export function summaryRowOf(entry: SpendEntry): RequestLogRow {
  return {
    id: newRequestId(entry.dayStartMs),
    upstreamRequestId: null,
    startedAtMs: entry.dayStartMs,
    ttfbMs: null,
    durationMs: null,
    clientName: entry.clientName,
    profileId: entry.profileId,
    method: 'POST',
    clientPath: SUMMARY_ROW_PATH,
    upstreamPath: '',
    protocol: 'openai',
    protocolMode: 'native',
    requestedModel: entry.model,
    upstreamModel: entry.model,
    responseModel: null,
    modelMismatch: false,
    stream: false,
    notes: [
      `Stands for ${entry.requests} request(s) of this day whose rows could not be written to the log (the disk was full, ` +
        'or the log fell behind a load that took every core): ' +
        `it holds their spend and tokens, so totals and budgets count them. ${entry.errors} of them failed.`,
    ],
    status: null,
    errorClass: null,
    errorMessage: null,
    errorCode: null,
    retries: 0,
    inputTokens: entry.inputTokens,
    outputTokens: entry.outputTokens,
    cachedInputTokens: entry.cachedInputTokens,
    reasoningTokens: entry.reasoningTokens,
    costCredits: entry.costCredits,
    usageSource: 'estimated',
    state: 'done',
    agentSessionId: null,
    summary: null,
    replayOf: null,
  };
}
