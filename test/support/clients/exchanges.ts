import type { RequestLifecycleEvent } from '../../../proxy/contracts/lifecycle.ts';

type StartEvent = Extract<RequestLifecycleEvent, { type: 'start' }>;
type EndEvent = Extract<RequestLifecycleEvent, { type: 'end' }>;

/** One request through the proxy, as its lifecycle events tell it. */
export interface Exchange {
  start: StartEvent;
  end: EndEvent;
}

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
 * The exchanges in the feed from `fromIndex` on, once every started request has ended, resolved by
 * the last `end` itself. A CLI can exit as soon as it read a stream's last event, a moment before the
 * proxy publishes `end`.
 */
export function settledExchanges(feed: LifecycleEventFeed, fromIndex: number, timeoutMs: number): Promise<Exchange[]> {
  const settled = (): Exchange[] | null => {
    const { exchanges, openCount } = pairUp(feed.events.slice(fromIndex));
    return openCount === 0 ? exchanges : null;
  };
  return whenPublished(
    feed,
    settled,
    timeoutMs,
    () => `${pairUp(feed.events.slice(fromIndex)).openCount} request(s) through the proxy never ended`,
  );
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
  return whenPublished(
    feed,
    () => feed.events.slice(fromIndex).find(isWanted) ?? null,
    timeoutMs,
    () => `no ${type} event through the proxy in ${timeoutMs} ms`,
  );
}

/**
 * What `found` reads from the feed, now or right after the publication that makes it non-null;
 * `timeoutMs` only bounds the wait, with `failure` as the error.
 */
function whenPublished<Found>(
  feed: LifecycleEventFeed,
  found: () => Found | null,
  timeoutMs: number,
  failure: () => string,
): Promise<Found> {
  const already = found();
  if (already !== null) return Promise.resolve(already);
  return new Promise((resolve, reject) => {
    const unsubscribe = feed.subscribe(() => {
      const now = found();
      if (now === null) return;
      clearTimeout(deadline);
      unsubscribe();
      resolve(now);
    });
    const deadline = setTimeout(() => {
      unsubscribe();
      reject(new Error(failure()));
    }, timeoutMs);
  });
}
