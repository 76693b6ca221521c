import { describe, expect, it } from 'vitest';
import type { RequestLogRow } from '../../../proxy/contracts/log.ts';
import { rowFromStart } from '../../../proxy/store/write/rowDraft.ts';
import { summaryRowOf, UnwrittenRows } from '../../../proxy/store/write/unwrittenRows.ts';
import { startEvent, TEST_STARTED_AT_MS } from '../../support/lifecycleEvents.ts';

function row(id: string, costCredits: number | null, state: RequestLogRow['state'] = 'done'): RequestLogRow {
  return { ...rowFromStart(startEvent(id)), state, status: 200, costCredits, usageSource: 'reported' };
}

const credits = (rows: UnwrittenRows): number => rows.spend().reduce((sum, entry) => sum + entry.costCredits, 0);
const requests = (rows: UnwrittenRows): number => rows.spend().reduce((sum, entry) => sum + entry.requests, 0);

describe('UnwrittenRows', () => {
  it('keeps the latest version of each row, oldest first', () => {
    const rows = new UnwrittenRows(10);
    rows.keep([row('a', null, 'in_flight'), row('b', 0.5)]);
    rows.keep([row('a', 0.25)]);
    expect(rows.oldestRows(10).map((kept) => [kept.id, kept.state])).toEqual([
      ['b', 'done'],
      ['a', 'done'],
    ]);
    expect(credits(rows)).toBe(0.75);
  });

  it('past its bound folds the oldest finished rows into their spend, never dropping spend', () => {
    const rows = new UnwrittenRows(2);
    rows.keep([row('running', 0.125, 'in_flight'), row('a', 1), row('b', 2), row('c', 4)]);
    expect(rows.keptRows).toBe(2);
    expect(rows.foldedRequests).toBe(2);
    expect(rows.oldestRows(10).map((kept) => kept.id)).toEqual(['running', 'c']);
    expect(credits(rows)).toBe(7.125);
    expect(requests(rows)).toBe(4);
  });

  it('forgets rows once written, but not a later version that came in meanwhile', () => {
    const rows = new UnwrittenRows(10);
    const first = row('a', 1);
    rows.keep([first, row('b', 2)]);
    rows.keep([row('a', 3)]);
    rows.written([first, ...rows.oldestRows(1)]);
    expect(rows.oldestRows(10).map((kept) => [kept.id, kept.costCredits])).toEqual([['a', 3]]);
    rows.written(rows.oldestRows(10));
    expect(rows.isEmpty).toBe(true);
  });

  it('counts only the difference to an in-flight version already in the database', () => {
    const rows = new UnwrittenRows(10);
    rows.noteWritten([row('stream', 0.25, 'in_flight')]);
    rows.keep([row('stream', 1)]);
    expect(rows.spend()).toEqual([expect.objectContaining({ requests: 0, costCredits: 0.75 })]);
  });

  it("carries an earlier run's spend, written as summary rows", () => {
    const carried = {
      dayStartMs: TEST_STARTED_AT_MS,
      profileId: 'p',
      clientName: 'c',
      model: 'm',
      requests: 7,
      errors: 1,
      costCredits: 3.5,
      unpricedRequests: 0,
      inputTokens: 70,
      outputTokens: 14,
      cachedInputTokens: 0,
      reasoningTokens: 0,
      gatewayCost: null,
      unstatedRequests: 0,
    };
    const rows = new UnwrittenRows(10, [carried]);
    expect(rows.isEmpty).toBe(false);
    expect(rows.foldedRequests).toBe(7);
    const [summary] = rows.summaryRows();
    expect(summary).toMatchObject({
      startedAtMs: TEST_STARTED_AT_MS,
      profileId: 'p',
      clientName: 'c',
      upstreamModel: 'm',
      costCredits: 3.5,
      inputTokens: 70,
      state: 'done',
      usageSource: 'estimated',
    });
    expect(summary?.notes[0]).toMatch(
      /^Stands for 7 request\(s\) of this day whose rows could not be written to the log \(the disk was full, or the log fell behind/,
    );
    expect(summary?.id).not.toBe(summaryRowOf(carried).id);
    rows.summariesWritten();
    expect(rows.isEmpty).toBe(true);
  });
});

describe('UnwrittenRows spend, kept as rows come and go', () => {
  it('matches a recount after keeps, in-flight versions written, retries, folds and summaries', () => {
    const rows = new UnwrittenRows(3);
    rows.noteWritten([row('s1', 0.25, 'in_flight')]);
    rows.keep([row('s1', 0.5, 'in_flight'), row('a', 1), row('b', 2)]);
    rows.keep([row('s1', 1.5), row('c', 4), row('d', 8)]);
    // Bound 3: two finished rows were folded (a and b), s1, c and d are kept.
    expect(rows.foldedRequests).toBe(2);
    expect(credits(rows)).toBe(1 + 2 + (1.5 - 0.25) + 4 + 8);
    rows.written(rows.oldestRows(1));
    expect(credits(rows)).toBe(1 + 2 + 4 + 8);
    rows.summariesWritten();
    expect(credits(rows)).toBe(4 + 8);
    expect(requests(rows)).toBe(2);
    rows.written(rows.oldestRows(10));
    expect(rows.spend()).toEqual([]);
  });
});
