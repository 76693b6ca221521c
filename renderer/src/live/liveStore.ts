import type { LiveFrame } from '../../../proxy/contracts/liveEvents.ts';
import type { RequestFilters, RequestSummary } from '../../../proxy/contracts/requests.ts';
import { applyUpdate, insertionIndex, matchesFilters, type LiveRow } from './liveRows.ts';

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
    this.version += 1;
    this.publish();
  }

  applyFrame(frame: LiveFrame): void {
    for (const update of frame.requests) {
      const existing = this.rows.get(update.requestId);
      const next = applyUpdate(existing, update);
      if (!next) continue;
      if (!existing && !matchesFilters(next, this.filters)) continue;
      this.rows.set(next.id, next);
      if (!existing) this.order.splice(insertionIndex(this.order, this.rows, next.startedAtMs), 0, next.id);
      this.version += 1;
    }
  }

  /** Adds a page from the log; rows already known live keep their live state. */
  addPage(items: readonly RequestSummary[]): void {
    for (const item of items) {
      if (this.rows.has(item.id)) continue;
      this.rows.set(item.id, { ...item, text: '' });
      this.order.splice(insertionIndex(this.order, this.rows, item.startedAtMs), 0, item.id);
      this.version += 1;
    }
  }

  publish(): void {
    if (this.published.version === this.version && this.published.rows === this.rows) return;
    this.published = { order: this.order.slice(), rows: this.rows, version: this.version };
    for (const listener of this.listeners) listener();
  }
}
