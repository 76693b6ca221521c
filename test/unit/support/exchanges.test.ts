import { describe, expect, it } from 'vitest';
import type { RequestLifecycleEvent } from '../../../proxy/contracts/lifecycle.ts';
import { RequestEvents } from '../../../proxy/contracts/requestEvents.ts';
import { firstEventOf, settledExchanges } from '../../support/clients/exchanges.ts';
import { endEvent, startEvent } from '../../support/lifecycleEvents.ts';

/** A feed as the proxy harness keeps it: every event so far, and the events themselves to listen to. */
function eventFeed() {
  const published = new RequestEvents();
  const events: RequestLifecycleEvent[] = [];
  published.subscribe((event) => events.push(event));
  return {
    feed: { events, subscribe: published.subscribe.bind(published) },
    publish: (event: RequestLifecycleEvent) => published.emit(event),
  };
}

const delta = (requestId: string): RequestLifecycleEvent => ({ type: 'delta', requestId, text: 'Hi' });

describe('firstEventOf', () => {
  it('resolves when the event is published, before any timer could fire, not on a later poll', async () => {
    const { feed, publish } = eventFeed();
    publish(delta('before'));
    let found: RequestLifecycleEvent | null = null;
    void firstEventOf(feed, feed.events.length, 'delta', 60_000).then((event) => {
      found = event;
    });
    publish(delta('r1'));
    // Only the promise jobs queued by publishing run before setImmediate; a poll's timer would not have fired yet.
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(found).toEqual(delta('r1'));
  });

  it('returns an event already published from the index on', async () => {
    const { feed, publish } = eventFeed();
    publish(delta('r1'));
    await expect(firstEventOf(feed, 0, 'delta', 60_000)).resolves.toEqual(delta('r1'));
  });

  it('rejects naming the event when none is published in time', async () => {
    const { feed } = eventFeed();
    await expect(firstEventOf(feed, 0, 'end', 1)).rejects.toThrow(/no end event/);
  });
});

describe('settledExchanges', () => {
  const start = (requestId: string) => startEvent(requestId);
  const end = (requestId: string) => endEvent(requestId);

  it('resolves when the last started request ends, not on a later poll', async () => {
    const { feed, publish } = eventFeed();
    publish(start('r1'));
    publish(start('r2'));
    let settled: unknown = null;
    void settledExchanges(feed, 0, 60_000).then((exchanges) => {
      settled = exchanges.map((exchange) => exchange.start.requestId);
    });
    publish(end('r1'));
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(settled).toBeNull();
    publish(end('r2'));
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(settled).toEqual(['r1', 'r2']);
  });

  it('rejects counting the requests that never ended', async () => {
    const { feed, publish } = eventFeed();
    publish(start('r1'));
    await expect(settledExchanges(feed, 0, 1)).rejects.toThrow(/1 request\(s\) through the proxy never ended/);
  });
});
