import { describe, expect, it } from 'vitest';
import { FoldedSpend, nextBacklogMode, splitForFolding, type BacklogMode } from '../../../proxy/store/write/logBacklog.ts';
import { endEvent, startEvent } from '../../support/lifecycleEvents.ts';

describe('nextBacklogMode', () => {
  const budget = 1_000;
  it.each<[BacklogMode, number, BacklogMode]>([
    ['post', 0, 'post'],
    ['post', 500, 'post'],
    ['post', 501, 'withoutBodies'],
    ['post', 1_000, 'withoutBodies'],
    ['post', 1_001, 'fold'],
    ['withoutBodies', 1_001, 'fold'],
    ['withoutBodies', 251, 'withoutBodies'],
    ['withoutBodies', 250, 'post'],
    ['fold', 501, 'fold'],
    ['fold', 500, 'withoutBodies'],
    ['fold', 251, 'withoutBodies'],
    ['fold', 250, 'post'],
  ])('from %s with %i bytes queued: %s', (current, queuedBytes, expected) => {
    expect(nextBacklogMode(current, queuedBytes, budget)).toBe(expected);
  });
});

describe('splitForFolding', () => {
  it('folds requests that started and ended here, holds those still running, posts those the thread began', () => {
    const events = [
      startEvent('whole'),
      startEvent('running'),
      { type: 'headers' as const, requestId: 'whole', status: 200, ttfbMs: 5, upstreamRequestId: null, retries: 1 },
      endEvent('earlier', { costCredits: 9 }),
      endEvent('whole', { costCredits: 0.5 }),
    ];
    const split = splitForFolding(events);
    expect(split.post).toEqual([events[3]]);
    expect(split.hold).toEqual([events[1]]);
    expect(split.folded).toHaveLength(1);
    expect(split.folded[0]).toMatchObject({ id: 'whole', state: 'done', costCredits: 0.5, retries: 0, status: 200, inputTokens: 10 });
  });
});

describe('FoldedSpend', () => {
  const folded = (costCredits: number) => {
    const [row] = splitForFolding([startEvent('r'), endEvent('r', { costCredits })]).folded;
    if (row === undefined) throw new Error('no row folded');
    return row;
  };

  it('counts what waits and what was posted until the thread took it in; a thread that died gets it again', () => {
    const spend = new FoldedSpend();
    spend.add([folded(1), folded(2)]);
    expect(spend.requests).toBe(2);
    expect(spend.entries()).toMatchObject([{ requests: 2, costCredits: 3 }]);

    const posted = spend.takeWaiting();
    expect(posted).toMatchObject([{ requests: 2, costCredits: 3 }]);
    expect(spend.hasWaiting).toBe(false);
    spend.add([folded(4)]);
    expect(spend.requests).toBe(3);
    expect(spend.entries().reduce((sum, entry) => sum + entry.costCredits, 0)).toBe(7);

    spend.threadLost();
    expect(spend.entries()).toMatchObject([{ requests: 3, costCredits: 7 }]);
    spend.takeWaiting();
    spend.taken();
    expect(spend.requests).toBe(0);
    expect(spend.entries()).toEqual([]);
  });
});
