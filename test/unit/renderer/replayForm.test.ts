import { describe, expect, it } from 'vitest';
import { editedBodyProblem, signedChange } from '../../../renderer/src/detail/replayForm.ts';

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
