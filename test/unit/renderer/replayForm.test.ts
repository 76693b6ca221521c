import { describe, expect, it } from 'vitest';
import { editedBodyProblem, runningReplayOf, signedChange } from '../../../renderer/src/detail/replayForm.ts';
import type { LiveRow } from '../../../renderer/src/live/liveRows.ts';
import type { LiveSnapshot } from '../../../renderer/src/live/liveStore.ts';

describe('editedBodyProblem', () => {
  it.each([
    ['valid JSON', '{"model":"m"}', 'application/json', null],
    ['an empty body (nothing to check)', '  ', 'application/json', null],
    ['cut JSON', '{"model":', 'application/json', /not valid JSON \(.+\)\. Correct it/],
    ['JSON when the content type is unknown', '[1,', null, /not valid JSON/],
    ['a text body is not checked', 'hello', 'text/plain', null],
  ])('%s', (_name, body, contentType, expected) => {
    const problem = editedBodyProblem(body, contentType);
    if (expected === null) expect(problem).toBeNull();
    else expect(problem).toMatch(expected);
  });
});

describe('signedChange', () => {
  it.each([
    [5, 'tokens', '+5'],
    [-1200, 'tokens', '−1,200'],
    [0, 'tokens', ''],
    [null, 'tokens', ''],
    [-13.29, 'ms', '−13 ms'],
    [2500, 'ms', '+2.50 s'],
    [0.25, 'credits', '+0.25'],
    [-0.00004, 'credits', '−0.00004'],
    [1e-12, 'credits', ''],
  ] as const)('%s %s', (value, unit, expected) => {
    expect(signedChange(value, unit)).toBe(expected);
  });
});

describe('runningReplayOf', () => {
  const row = (id: string, replayOf: string | null, state: 'in_flight' | 'done') =>
    ({ id, replayOf, state, text: `${id} text` }) as unknown as LiveRow;
  const snapshotOf = (...rows: LiveRow[]): LiveSnapshot => ({
    order: rows.map((each) => each.id),
    rows: new Map(rows.map((each) => [each.id, each])),
    version: 1,
    listVersion: 1,
    olderRowsMoved: false,
    rowsCameLive: rows.length,
    filters: {},
  });

  it.each([
    [
      'the running replay among the newest rows',
      snapshotOf(row('b', null, 'in_flight'), row('r', 'o', 'in_flight'), row('o', null, 'done')),
      'r',
    ],
    ['a finished replay is no longer running', snapshotOf(row('r', 'o', 'done'), row('o', null, 'done')), undefined],
    ['a replay of another request', snapshotOf(row('r', 'x', 'in_flight')), undefined],
    [
      'too far down the list',
      snapshotOf(...Array.from({ length: 50 }, (_, index) => row(`n${index}`, null, 'in_flight')), row('r', 'o', 'in_flight')),
      undefined,
    ],
  ])('%s', (_name, snapshot, expected) => {
    expect(runningReplayOf(snapshot, 'o')?.id).toBe(expected);
  });
});
