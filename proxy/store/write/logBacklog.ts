import type { RequestLogRow } from '../../contracts/log.ts';
import type { RequestLifecycleEvent } from '../../contracts/lifecycle.ts';
import { applyRowEvent, rowFromStart } from './rowDraft.ts';
import { addEntry, addRow, type SpendEntry } from './unwrittenSpend.ts';

/**
 * What the main thread does with the log's events while the log thread is behind (a load that
 * takes every core, or a slow disk): `post` them whole, post them
 * `withoutBodies`, or `fold` requests into their spend per day, profile, client and model instead
 * of rows of their own. Pure, so the thresholds are tested as a table.
 */
export type BacklogMode = 'post' | 'withoutBodies' | 'fold';

/**
 * The mode for the next batch, from the bytes posted to the thread and not yet taken in. Bodies
 * are the bulk of a batch, so they go first: past half the budget, until a quarter. Rows go past
 * the whole budget, until half of it: each step comes back only well below where it began, so
 * the mode does not flap at a boundary. The queue then holds at most the budget and one batch.
 */
export function nextBacklogMode(current: BacklogMode, queuedBytes: number, budgetBytes: number): BacklogMode {
  if (queuedBytes > budgetBytes) return 'fold';
  if (current === 'fold' && queuedBytes > budgetBytes / 2) return 'fold';
  if (queuedBytes > budgetBytes / 2) return 'withoutBodies';
  if (current !== 'post' && queuedBytes > budgetBytes / 4) return 'withoutBodies';
  return 'post';
}

const megabytes = (bytes: number): number => Math.round(bytes / (1024 * 1024));

/** What a row whose bodies were not kept says about it (the request detail shows it). */
export function bodiesNotKeptNote(budgetBytes: number): string {
  return `Bodies not kept: the request log had over ${megabytes(budgetBytes / 2)} MB of work waiting (a load taking every core).`;
}

/** What the log does not keep in `mode`, in words, or null: `foldedRequests` are counted and not yet written as summary rows. */
export function behindReasonText(mode: BacklogMode, budgetBytes: number, foldedRequests: number): string | null {
  if (mode === 'fold') {
    return (
      `The request log fell behind a load that takes every core (over ${megabytes(budgetBytes)} MB of work waiting): requests are ` +
      `counted in spend summaries per day, profile, client and model instead of rows of their own until it catches up ` +
      `(${foldedRequests} so far), and their bodies are not kept. Totals and budgets count them.`
    );
  }
  if (mode === 'withoutBodies') {
    return `The request log fell behind a load that takes every core (over ${megabytes(budgetBytes / 2)} MB of work waiting): request bodies are not kept until it catches up.`;
  }
  if (foldedRequests > 0)
    return `${foldedRequests} request(s) counted while the request log was behind are being written to it as summary rows.`;
  return null;
}

/** Events of a batch while folding: what still goes to the thread, what waits, and the requests folded. */
export interface FoldSplit {
  /** Events of requests whose start the thread already has: it holds their rows, so they must complete them. */
  post: RequestLifecycleEvent[];
  /** Events of requests that started here and have not ended: folded, or posted, once they end. */
  hold: RequestLifecycleEvent[];
  /** The rows of requests that started and ended while folding: only their spend is kept. */
  folded: RequestLogRow[];
}

/**
 * Splits `events` (in order: those held from earlier batches first) while folding. A request
 * whose `start` is among them never reached the thread, so it can be folded whole once it ends;
 * any other request's events go on to the thread, which has its row.
 */
export function splitForFolding(events: readonly RequestLifecycleEvent[]): FoldSplit {
  const rows = new Map<string, RequestLogRow>();
  const ended = new Set<string>();
  for (const event of events) {
    if (event.type === 'start') rows.set(event.requestId, rowFromStart(event));
    else if (event.type === 'end') ended.add(event.requestId);
  }
  const split: FoldSplit = { post: [], hold: [], folded: [] };
  for (const event of events) {
    const row = rows.get(event.requestId);
    if (row === undefined) split.post.push(event);
    else if (!ended.has(event.requestId)) split.hold.push(event);
    else if (event.type === 'headers' || event.type === 'usage' || event.type === 'progress' || event.type === 'end') {
      const next = applyRowEvent(row, event);
      rows.set(event.requestId, next);
      if (event.type === 'end') split.folded.push(next);
    }
  }
  return split;
}

/**
 * The spend of requests folded on the main thread, until the log thread has taken it in (then it
 * is in the thread's unwritten spend, written as summary rows). Totals and budgets count it
 * meanwhile: what waits here and what was posted and not yet taken in.
 */
export class FoldedSpend {
  readonly #waiting = new Map<string, SpendEntry>();
  /** Posted to the thread, oldest first; each goes when the thread says it took it in. */
  readonly #posted: SpendEntry[][] = [];
  #waitingRequests = 0;

  add(rows: readonly RequestLogRow[]): void {
    for (const row of rows) addRow(this.#waiting, row);
    this.#waitingRequests += rows.length;
  }

  get hasWaiting(): boolean {
    return this.#waiting.size > 0;
  }

  /** Requests folded and not yet taken in by the thread. */
  get requests(): number {
    return this.#waitingRequests + this.#posted.reduce((sum, entries) => sum + entries.reduce((n, entry) => n + entry.requests, 0), 0);
  }

  /** What waits, to post now; it counts as posted until `taken`. */
  takeWaiting(): SpendEntry[] {
    const entries = [...this.#waiting.values()];
    this.#waiting.clear();
    this.#waitingRequests = 0;
    if (entries.length > 0) this.#posted.push(entries);
    return entries;
  }

  /** The thread took in the oldest posted entries. */
  taken(): void {
    this.#posted.shift();
  }

  /** The thread died: what it had not taken in waits to go to the next one (never lost, at worst counted twice). */
  threadLost(): void {
    for (const entries of this.#posted.splice(0)) {
      for (const entry of entries) addEntry(this.#waiting, entry);
      this.#waitingRequests += entries.reduce((n, entry) => n + entry.requests, 0);
    }
  }

  entries(): SpendEntry[] {
    return [...this.#waiting.values(), ...this.#posted.flat()];
  }
}
