import { LIVE_TEXT_LIMIT_CHARS, type LiveFrame, type LiveRequestUpdate } from '../../../proxy/contracts/liveEvents.ts';
import type { RequestFilters, RequestSummary } from '../../../proxy/contracts/requests.ts';
import { applyUpdate, insertionIndex, matchesFilters, type LiveRow } from './liveRows.ts';

/**
 * Requests whose live updates are kept while a page is awaited. A page load takes a moment, far
 * less than this many requests take; past it, a request's updates are not kept (its row then shows
 * what the log said).
 */
const MAX_UPDATES_BEFORE_PAGE = 1_000;

export interface LiveSnapshot {
  order: readonly string[];
  rows: ReadonlyMap<string, LiveRow>;
  version: number;
}

/**
 * The rows the Live screen shows, newest first. Mutated in place (50,000 rows must not be copied per
 * frame) and published as a new snapshot only when `publish` runs, which the hook calls once per
 * animation frame however many live frames arrived.
 */
export class LiveStore {
  private rows = new Map<string, LiveRow>();
  private order: string[] = [];
  private version = 0;
  private published: LiveSnapshot = { order: [], rows: this.rows, version: 0 };
  private readonly listeners = new Set<() => void>();
  private filters: RequestFilters = {};
  /**
   * Updates for requests the store does not know yet, merged per request, from a reset until the
   * first page after it. The page was read from the log before some of them came: a request that
   * ended after the read but whose end came live before the page stayed "streaming" for good, and
   * one still running lost its text so far. A row the page lists in flight takes them.
   */
  private updatesBeforePage: Map<string, LiveRequestUpdate> | null = null;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getSnapshot = (): LiveSnapshot => this.published;

  /** Starts over for a new set of filters (the caller then loads the first page). */
  reset(filters: RequestFilters): void {
    this.filters = filters;
    this.rows = new Map();
    this.order = [];
    this.updatesBeforePage = new Map();
    this.version += 1;
    this.publish();
  }

  applyFrame(frame: LiveFrame): void {
    for (const update of frame.requests) {
      const existing = this.rows.get(update.requestId);
      const next = applyUpdate(existing, update);
      if (!next) {
        this.keepUntilPage(update);
        continue;
      }
      if (!existing && !matchesFilters(next, this.filters)) continue;
      this.rows.set(next.id, next);
      if (!existing) this.order.splice(insertionIndex(this.order, this.rows, next.startedAtMs), 0, next.id);
      this.version += 1;
    }
  }

  /** Adds a page from the log; rows already known live keep their live state. */
  addPage(items: readonly RequestSummary[]): void {
    const updatesBeforePage = this.updatesBeforePage;
    this.updatesBeforePage = null;
    for (const item of items) {
      if (this.rows.has(item.id)) continue;
      const logged: LiveRow = { ...item, text: '' };
      // Only a row still in flight in the log: one that ended there is newer than any live update from before its end.
      const early = item.state === 'in_flight' ? updatesBeforePage?.get(item.id) : undefined;
      this.rows.set(item.id, early === undefined ? logged : (applyUpdate(logged, early) ?? logged));
      this.order.splice(insertionIndex(this.order, this.rows, item.startedAtMs), 0, item.id);
      this.version += 1;
    }
  }

  private keepUntilPage(update: LiveRequestUpdate): void {
    const kept = this.updatesBeforePage;
    if (kept === null) return;
    const before = kept.get(update.requestId);
    if (before === undefined) {
      if (kept.size < MAX_UPDATES_BEFORE_PAGE) kept.set(update.requestId, { ...update, fields: { ...update.fields } });
      return;
    }
    Object.assign(before.fields, update.fields);
    before.appendText = (before.appendText + update.appendText).slice(-LIVE_TEXT_LIMIT_CHARS);
  }

  publish(): void {
    if (this.published.version === this.version && this.published.rows === this.rows) return;
    this.published = { order: this.order.slice(), rows: this.rows, version: this.version };
    for (const listener of this.listeners) listener();
  }
}
