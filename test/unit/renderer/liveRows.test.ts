import { describe, expect, it } from 'vitest';
import { LIVE_TEXT_LIMIT_CHARS, type LiveRequestUpdate } from '../../../proxy/contracts/liveEvents.ts';
import type { RequestFilters } from '../../../proxy/contracts/requests.ts';
import { applyUpdate, matchesFilters, type LiveRow } from '../../../renderer/src/live/liveRows.ts';
import { LIVE_ROWS_KEPT, LiveStore } from '../../../renderer/src/live/liveStore.ts';

const start = (requestId: string, startedAtMs: number, fields: Partial<LiveRow> = {}): LiveRequestUpdate => ({
  requestId,
  appendText: '',
  fields: { id: requestId, startedAtMs, state: 'in_flight', requestedModel: 'm', clientName: 'aider', ...fields },
});
const delta = (requestId: string, text: string): LiveRequestUpdate => ({ requestId, appendText: text, fields: {} });
const end = (requestId: string, fields: Partial<LiveRow> = {}): LiveRequestUpdate => ({
  requestId,
  appendText: '',
  fields: { state: 'done', status: 200, ...fields },
});

describe('applyUpdate', () => {
  it('ignores updates for a request never seen starting', () => {
    expect(applyUpdate(undefined, delta('x', 'hi'))).toBeNull();
  });

  it('grows the text while in flight and drops it when done', () => {
    let row = applyUpdate(undefined, start('a', 1))!;
    row = applyUpdate(row, delta('a', 'Hel'))!;
    row = applyUpdate(row, delta('a', 'lo'))!;
    expect(row.text).toBe('Hello');
    row = applyUpdate(row, end('a', { outputTokens: 2 }))!;
    expect(row).toMatchObject({ state: 'done', text: '', outputTokens: 2, requestedModel: 'm' });
  });

  it('keeps only the tail of a very long stream', () => {
    const row = applyUpdate(applyUpdate(undefined, start('a', 1))!, delta('a', `${'x'.repeat(LIVE_TEXT_LIMIT_CHARS)}END`))!;
    expect(row.text).toHaveLength(LIVE_TEXT_LIMIT_CHARS);
    expect(row.text.endsWith('END')).toBe(true);
  });
});

describe('matchesFilters', () => {
  const row = {
    ...applyUpdate(undefined, start('a', 100, { profileId: 'main', status: 429, errorClass: 'rate_limited' }))!,
    text: 'the quick fox',
  };
  it.each<[RequestFilters, boolean]>([
    [{}, true],
    [{ fromMs: 101 }, false],
    [{ toMs: 99 }, false],
    [{ profileId: 'main' }, true],
    [{ profileId: 'other' }, false],
    [{ model: 'm' }, true],
    [{ client: 'cline' }, false],
    [{ status: 'error' }, true],
    [{ status: 'ok' }, false],
    [{ status: 429 }, true],
    [{ errorClass: 'auth' }, false],
    [{ text: 'QUICK' }, true],
    [{ text: 'slow' }, false],
  ])('%j → %s', (filters, expected) => {
    expect(matchesFilters(row, filters)).toBe(expected);
  });
});

describe('LiveStore', () => {
  it('orders newest first across live frames and log pages, and publishes once per call', () => {
    const store = new LiveStore();
    let notified = 0;
    store.subscribe(() => (notified += 1));
    store.applyFrame({ requests: [start('b', 200), start('d', 400)], status: null });
    store.addPage([
      { ...applyUpdate(undefined, start('a', 100))!, state: 'done' },
      { ...applyUpdate(undefined, start('c', 300))!, state: 'done' },
    ]);
    store.applyFrame({ requests: [delta('b', 'x'), delta('zz', 'ignored')], status: null });
    expect(notified).toBe(0);
    store.publish();
    expect(notified).toBe(1);
    const snapshot = store.getSnapshot();
    expect(snapshot.order).toEqual(['d', 'c', 'b', 'a']);
    expect(snapshot.rows.get('b')?.text).toBe('x');
    store.publish();
    expect(notified).toBe(1);
  });

  it('keeps rows that arrive live out of a filtered view', () => {
    const store = new LiveStore();
    store.reset({ client: 'cline' });
    store.applyFrame({ requests: [start('a', 1), start('b', 2, { clientName: 'cline' })], status: null });
    store.publish();
    expect(store.getSnapshot().order).toEqual(['b']);
  });

  // After a reconnect or a filter change the list starts over from the log: a request that ends
  // after the log was read but whose end frame arrives before the page was dropped as unknown, and
  // the page then showed it streaming for good.
  it('ends a row the log listed in flight when its end came live before the page', () => {
    const store = new LiveStore();
    store.reset({});
    store.applyFrame({ requests: [delta('a', 'the last words'), end('a', { outputTokens: 5 })], status: null });
    store.addPage([{ ...applyUpdate(undefined, start('a', 100))!, state: 'in_flight', status: 200 }]);
    store.publish();
    expect(store.getSnapshot().rows.get('a')).toMatchObject({ state: 'done', status: 200, outputTokens: 5, text: '' });
  });

  it('shows a row the log listed in flight with the text that came live before the page', () => {
    const store = new LiveStore();
    store.reset({});
    store.applyFrame({ requests: [delta('a', 'so '), delta('a', 'far')], status: null });
    store.addPage([{ ...applyUpdate(undefined, start('a', 100))!, status: 200 }]);
    store.applyFrame({ requests: [delta('a', '!')], status: null });
    store.publish();
    expect(store.getSnapshot().rows.get('a')).toMatchObject({ state: 'in_flight', text: 'so far!' });
  });

  it('keeps what the log says of a row that had ended, over live updates from before its end', () => {
    const store = new LiveStore();
    store.reset({});
    store.applyFrame({ requests: [{ requestId: 'a', appendText: 'x', fields: { outputTokens: 2, usageEstimated: true } }], status: null });
    store.addPage([{ ...applyUpdate(undefined, start('a', 100))!, state: 'done', status: 200, outputTokens: 9, usageEstimated: false }]);
    store.publish();
    expect(store.getSnapshot().rows.get('a')).toMatchObject({ state: 'done', outputTokens: 9, usageEstimated: false, text: '' });
  });
});

/** A request that started at `startedAtMs` and ended, as two live frames bring it. */
function arriveAndEnd(store: LiveStore, requestId: string, startedAtMs: number): void {
  store.applyFrame({ requests: [start(requestId, startedAtMs), delta(requestId, 'some text')], status: null });
  store.applyFrame({ requests: [end(requestId)], status: null });
}

// A window left open all day beside busy agents (issue 20: lean all day): every request that came
// live stayed in the list, about 1.4 KB each, and the list's work per painted frame grew with it.
describe("LiveStore's list version", () => {
  it("stays for a stream's text, so the list's lines are not worked out again, and moves when a row comes or its summary changes", () => {
    const store = new LiveStore();
    store.applyFrame({ requests: [start('a', 1), start('b', 2)], status: null });
    store.publish();
    const before = store.getSnapshot();
    store.applyFrame({ requests: [delta('a', 'Hello')], status: null });
    store.publish();
    const afterText = store.getSnapshot();
    expect(afterText.rows.get('a')?.text).toBe('Hello');
    expect(afterText.listVersion).toBe(before.listVersion);
    expect(afterText.order).toBe(before.order);
    // A refusal can join a group of identical ones: its end changes the lines.
    store.applyFrame({ requests: [end('a', { status: 403, errorClass: 'client_paused' })], status: null });
    store.publish();
    const afterEnd = store.getSnapshot();
    expect(afterEnd.listVersion).not.toBe(afterText.listVersion);
    store.applyFrame({ requests: [start('c', 3)], status: null });
    store.publish();
    expect(store.getSnapshot().listVersion).not.toBe(afterEnd.listVersion);
    expect(store.getSnapshot().order).toEqual(['c', 'b', 'a']);
  });
});

describe('LiveStore over a day of live requests', () => {
  it('keeps the newest LIVE_ROWS_KEPT rows and says older ones moved to the log', () => {
    const store = new LiveStore();
    store.reset({});
    store.addPage([]);
    const arrivals = 20 * LIVE_ROWS_KEPT;
    for (let index = 0; index < arrivals; index += 1) arriveAndEnd(store, `r${index}`, index);
    store.publish();
    const snapshot = store.getSnapshot();
    expect(snapshot.order).toHaveLength(LIVE_ROWS_KEPT);
    expect(snapshot.rows.size).toBe(LIVE_ROWS_KEPT);
    expect(snapshot.order[0]).toBe(`r${arrivals - 1}`);
    expect(snapshot.order.at(-1)).toBe(`r${arrivals - LIVE_ROWS_KEPT}`);
    expect(snapshot.olderRowsMoved).toBe(true);
  });

  it('keeps the rows the list shows below the newest ones, and lets them go at the next arrival once it shows the top again', () => {
    const store = new LiveStore();
    store.reset({});
    const logged = Array.from({ length: 3 * LIVE_ROWS_KEPT }, (_, index) => ({
      ...applyUpdate(undefined, start(`old${index}`, -index))!,
      state: 'done' as const,
    }));
    store.addPage(logged);
    // The user paged down to the oldest of them and looks at it while requests keep coming.
    store.showRows(logged.length);
    for (let index = 0; index < 100; index += 1) arriveAndEnd(store, `new${index}`, index + 1);
    store.publish();
    expect(store.getSnapshot().order).toContain(`old${logged.length - 1}`);
    expect(store.getSnapshot().olderRowsMoved).toBe(false);

    store.showRows(30);
    // An update to a row it has (a summary the log wrote) is not an arrival: the list does not change under the user.
    store.applyFrame({ requests: [{ requestId: 'old0', appendText: '', fields: { summary: 'written' } }], status: null });
    store.publish();
    expect(store.getSnapshot().rows.size).toBe(logged.length + 100);
    arriveAndEnd(store, 'next', 1_000);
    store.publish();
    expect(store.getSnapshot().order).toHaveLength(LIVE_ROWS_KEPT);
    expect(store.getSnapshot().rows.size).toBe(LIVE_ROWS_KEPT);
    expect(store.getSnapshot().olderRowsMoved).toBe(true);
  });
});
