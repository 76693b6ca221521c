import { LIVE_TEXT_LIMIT_CHARS, type LiveFrame, type LiveRequestUpdate } from '../../../proxy/contracts/liveEvents.ts';
import type { RequestFilters, RequestSummary } from '../../../proxy/contracts/requests.ts';
import { applyUpdate, insertionIndex, matchesFilters, type LiveRow } from './liveRows.ts';

/**
 * Requests whose live updates are kept while a page is awaited. A page load takes a moment, far
 * less than this many requests take; past it, a request's updates are not kept (its row then shows
 * what the log said).
 */
const MAX_UPDATES_BEFORE_PAGE = 1_000;

/**
 * The newest rows the Live list keeps while it shows its top; older ones go back to the log, from
 * which scrolling down (or End) pages them in again. A row costs about 1.4 KB and every painted
 * frame that adds a row or changes one's summary (not a stream's text) copies and groups the list:
 * 1,000 rows are 1.8 MB and 0.3 ms a frame, a day of busy agents (50,000) 65 MB and 13 ms, most of a frame. The list shows about 25 rows at a time and a page is
 * 200: 1,000 is five pages, forty screens of scrolling back.
 */
export const LIVE_ROWS_KEPT = 1_000;
/** Rows kept past the deepest one the list shows: a page loaded below the user is not dropped as it arrives. */
const ROWS_KEPT_PAST_VIEW = 200;

export interface LiveSnapshot {
  order: readonly string[];
  rows: ReadonlyMap<string, LiveRow>;
  version: number;
  /**
   * Changes when the list's lines may have: a row came or went, or a row's summary changed. Not for
   * a stream's text, which is most frames: the list is not grouped again for them, and `order` is
   * the same array.
   */
  listVersion: number;
  /** Rows older than the last one were dropped (LIVE_ROWS_KEPT): the log has them, the next page starts there. */
  olderRowsMoved: boolean;
  /**
   * Rows that came live (of the filters then), across resets; it only grows, while the list itself
   * stays bounded. Not rows read from the log's pages: the log's figures held those already.
   */
  rowsCameLive: number;
  /** The filters of the last reset. */
  filters: RequestFilters;
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
  private listVersion = 0;
  private olderRowsMoved = false;
  private rowsCameLive = 0;
  /** How deep the list shows (rows from the top, Infinity while End heads for the oldest): those rows are not dropped. */
  private rowsShown = 0;
  /** Times rows were dropped: a page asked for before a drop would leave a gap (see `drops`). */
  private dropCount = 0;
  /** The view moved (`showRows`) since rows were last dropped: only then are they read back from the log. */
  private viewMovedSinceDrop = false;
  private filters: RequestFilters = {};
  private published: LiveSnapshot = {
    order: [],
    rows: this.rows,
    version: 0,
    listVersion: 0,
    olderRowsMoved: false,
    rowsCameLive: 0,
    filters: this.filters,
  };
  private readonly listeners = new Set<() => void>();
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

  /**
   * Starts over for a new set of filters (the caller then loads the first page). A running row's
   * text so far is kept for the page, which lists the row without it: the log has no text of a
   * running stream, and the feed sends only what comes next.
   */
  reset(filters: RequestFilters): void {
    const textsSoFar = new Map<string, LiveRequestUpdate>();
    for (const row of this.rows.values()) {
      if (row.state === 'in_flight' && row.text !== '' && textsSoFar.size < MAX_UPDATES_BEFORE_PAGE)
        textsSoFar.set(row.id, { requestId: row.id, fields: {}, appendText: row.text });
    }
    this.filters = filters;
    this.rows = new Map();
    this.order = [];
    this.updatesBeforePage = textsSoFar;
    this.olderRowsMoved = false;
    this.rowsShown = 0;
    this.version += 1;
    this.listVersion += 1;
    this.publish();
  }

  /**
   * The live channel (re)connected: its first frame sends each running stream's text so far in
   * full, so what the rows hold now would be doubled. Called before that frame, unlike the reset
   * that follows a return, which React runs later (the frame may come first; its text was then lost).
   */
  channelConnected(): void {
    for (const [id, row] of this.rows) {
      if (row.state !== 'in_flight' || row.text === '') continue;
      this.rows.set(id, { ...row, text: '' });
      this.version += 1;
    }
  }

  /**
   * The view moved (a scroll, End) and shows rows down to this many from the top. Rows go at the
   * next arrival, not as the user scrolls: only arrivals grow the list, and a list that changed
   * under a scroll would jump.
   */
  showRows(count: number): void {
    this.rowsShown = count;
    this.viewMovedSinceDrop = true;
  }

  /** Whether older rows were dropped since the last page: the next page then starts at `oldestStartedAtMs`. */
  get droppedOlderRows(): boolean {
    return this.olderRowsMoved;
  }

  /**
   * Whether the dropped rows may be read back: only once the view moved since. A short list is
   * always near its end, and read back at once each row a request pushed out, a page per request.
   */
  get olderRowsWanted(): boolean {
    return this.olderRowsMoved && this.viewMovedSinceDrop;
  }

  /** Counts every drop, so a page load can tell whether rows went while it was under way. */
  get drops(): number {
    return this.dropCount;
  }

  /** When the oldest row kept started; null with no row. */
  oldestStartedAtMs(): number | null {
    const oldest = this.order.at(-1);
    return oldest === undefined ? null : (this.rows.get(oldest)?.startedAtMs ?? null);
  }

  applyFrame(frame: LiveFrame): void {
    const rowsBefore = this.order.length;
    for (const update of frame.requests) {
      const existing = this.rows.get(update.requestId);
      const next = applyUpdate(existing, update);
      if (!next) {
        this.keepUntilPage(update);
        continue;
      }
      if (!existing && !matchesFilters(next, this.filters)) continue;
      this.rows.set(next.id, next);
      if (!existing) {
        this.insert(next);
        this.rowsCameLive += 1;
      } else if (Object.keys(update.fields).length > 0) this.listVersion += 1;
      this.version += 1;
    }
    if (this.order.length > rowsBefore) this.dropOlderRows();
  }

  /** Adds a page from the log; rows already known live keep their live state. */
  addPage(items: readonly RequestSummary[]): void {
    const updatesBeforePage = this.updatesBeforePage;
    this.updatesBeforePage = null;
    // A page continues the list from its oldest row (the caller drops one asked for before a drop).
    this.olderRowsMoved = false;
    for (const item of items) {
      if (this.rows.has(item.id)) continue;
      const logged: LiveRow = { ...item, text: '' };
      // Only a row still in flight in the log: one that ended there is newer than any live update from before its end.
      const early = item.state === 'in_flight' ? updatesBeforePage?.get(item.id) : undefined;
      const row = early === undefined ? logged : (applyUpdate(logged, early) ?? logged);
      this.rows.set(item.id, row);
      this.insert(row);
      this.version += 1;
    }
  }

  private insert(row: LiveRow): void {
    this.order.splice(insertionIndex(this.order, this.rows, row.startedAtMs), 0, row.id);
    this.listVersion += 1;
  }

  /** Drops the oldest rows past the newest LIVE_ROWS_KEPT, unless the list shows them (see `showRows`). */
  private dropOlderRows(): void {
    const kept = Math.max(LIVE_ROWS_KEPT, this.rowsShown + ROWS_KEPT_PAST_VIEW);
    if (this.order.length <= kept) return;
    for (const id of this.order.splice(kept)) this.rows.delete(id);
    this.olderRowsMoved = true;
    this.viewMovedSinceDrop = false;
    this.dropCount += 1;
    this.version += 1;
    this.listVersion += 1;
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
    const listChanged = this.published.listVersion !== this.listVersion || this.published.rows !== this.rows;
    this.published = {
      order: listChanged ? this.order.slice() : this.published.order,
      rows: this.rows,
      version: this.version,
      listVersion: this.listVersion,
      olderRowsMoved: this.olderRowsMoved,
      rowsCameLive: this.rowsCameLive,
      filters: this.filters,
    };
    for (const listener of this.listeners) listener();
  }
}
