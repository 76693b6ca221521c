import { setTimeout as sleep } from 'node:timers/promises';
import type { RequestLifecycleEvent } from '../../../proxy/contracts/lifecycle.ts';

type StartEvent = Extract<RequestLifecycleEvent, { type: 'start' }>;
type EndEvent = Extract<RequestLifecycleEvent, { type: 'end' }>;

/** One request through the proxy, as its lifecycle events tell it. */
export interface Exchange {
  start: StartEvent;
  end: EndEvent;
}

const POLL_INTERVAL_MS = 20;

function pairUp(events: readonly RequestLifecycleEvent[]): { exchanges: Exchange[]; openCount: number } {
  const ends = new Map<string, EndEvent>();
  for (const event of events) if (event.type === 'end') ends.set(event.requestId, event);
  const starts = events.filter((event): event is StartEvent => event.type === 'start');
  const exchanges = starts.flatMap((start) => {
    const end = ends.get(start.requestId);
    return end === undefined ? [] : [{ start, end }];
  });
  return { exchanges, openCount: starts.length - exchanges.length };
}

/**
 * The exchanges among `events` from `fromIndex` on, once every started request has ended. A CLI
 * can exit as soon as it read a stream's last event, a moment before the proxy publishes `end`.
 */
export async function settledExchanges(
  events: readonly RequestLifecycleEvent[],
  fromIndex: number,
  timeoutMs: number,
): Promise<Exchange[]> {
  const deadlineMs = Date.now() + timeoutMs;
  for (;;) {
    const { exchanges, openCount } = pairUp(events.slice(fromIndex));
    if (openCount === 0) return exchanges;
    if (Date.now() >= deadlineMs) throw new Error(`${openCount} request(s) through the proxy never ended`);
    await sleep(POLL_INTERVAL_MS);
  }
}

/** The lifecycle events published so far, and a listener for each next one (the proxy harness). */
export interface LifecycleEventFeed {
  events: readonly RequestLifecycleEvent[];
  subscribe(listener: (event: RequestLifecycleEvent) => void): () => void;
}

/**
 * The first event of `type` in the feed from `fromIndex` on, resolved by the publication itself: a
 * test interrupting a client at its first delta acts at that delta, not up to a poll later.
 */
export function firstEventOf<Type extends RequestLifecycleEvent['type']>(
  feed: LifecycleEventFeed,
  fromIndex: number,
  type: Type,
  timeoutMs: number,
): Promise<Extract<RequestLifecycleEvent, { type: Type }>> {
  const isWanted = (event: RequestLifecycleEvent): event is Extract<RequestLifecycleEvent, { type: Type }> => event.type === type;
  const found = feed.events.slice(fromIndex).find(isWanted);
  if (found !== undefined) return Promise.resolve(found);
  return new Promise((resolve, reject) => {
    const unsubscribe = feed.subscribe((event) => {
      if (!isWanted(event)) return;
      clearTimeout(deadline);
      unsubscribe();
      resolve(event);
    });
    const deadline = setTimeout(() => {
      unsubscribe();
      reject(new Error(`no ${type} event through the proxy in ${timeoutMs} ms`));
    }, timeoutMs);
  });
}
