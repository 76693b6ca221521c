import { describe, expect, it } from 'vitest';
import { stopLines } from '../../../../proxy/app/cli/serve.ts';

const LOGGED = { unwritten: null, reason: null };

describe('what `airlock serve` says when it stops', () => {
  it('says what the log is missing', () => {
    const reason = 'The disk holding /data is full: 3 request(s) costing 0.5 credits are not in the request log yet.';
    const unwritten = { requests: 3, costCredits: 0.5, keptRows: 3, foldedRequests: 0, saved: true };
    expect(stopLines({ endedRequests: 0, unfinishedRequests: 0, cutAnswers: 0 }, { unwritten, reason })).toEqual([
      `Stopped with requests missing from the log. ${reason}`,
    ]);
  });

  it.each([
    { report: { endedRequests: 0, unfinishedRequests: 0, cutAnswers: 0 }, lines: [] },
    {
      report: { endedRequests: 2, unfinishedRequests: 0, cutAnswers: 0 },
      lines: [/^Ended 2 request\(s\) still running after the wait: each got an error \(streams an error event\) and is logged\.$/],
    },
    {
      report: { endedRequests: 1, unfinishedRequests: 1, cutAnswers: 0 },
      lines: [/^Ended 1 request/, /^1 request\(s\) had not finished their accounting: they are marked interrupted at the next start\.$/],
    },
    {
      report: { endedRequests: 1, unfinishedRequests: 0, cutAnswers: 1 },
      lines: [
        /^Ended 1 request/,
        /^1 answer\(s\) were cut: their clients did not read the rest within the wait, so they see a broken connection\.$/,
      ],
    },
  ])('$report', ({ report, lines }) => {
    const said = stopLines(report, LOGGED);
    expect(said).toHaveLength(lines.length);
    for (const [index, line] of lines.entries()) expect(said[index]).toMatch(line);
  });
});
