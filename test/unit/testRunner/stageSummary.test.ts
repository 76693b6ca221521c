import { describe, expect, it } from 'vitest';
import { parseStages, stageOutcome, summaryLines, type StageRecord } from '../../stageSummary.ts';

const check = (name: string, exitCode: number): StageRecord => ({ kind: 'check', name, exitCode, wallSeconds: 3 });
const tests = (name: string, exitCode: number): StageRecord => ({ kind: 'tests', name, exitCode, wallSeconds: 60 });

describe('stage summary of npm test', () => {
  it('reads the stage records run-all.sh appends', () => {
    expect(parseStages('check\ttypecheck\t0\t12\ntests\twindow build\t2\t5\n')).toEqual([
      { kind: 'check', name: 'typecheck', exitCode: 0, wallSeconds: 12 },
      { kind: 'tests', name: 'window build', exitCode: 2, wallSeconds: 5 },
    ]);
  });

  it.each([
    ['a passing check counts one pass', check('lint', 0), null, { passed: 1, failed: 0 }],
    ['a failing check counts one failure', check('lint', 1), null, { passed: 0, failed: 1 }],
    ['a passing test stage counts its tests', tests('unit', 0), { numPassedTests: 40, numFailedTests: 0 }, { passed: 40, failed: 0 }],
    ['a failing test stage counts its failed tests', tests('e2e', 1), { numPassedTests: 7, numFailedTests: 3 }, { passed: 7, failed: 3 }],
    [
      'a failed stage with no failed test (a file that did not load) is one failure',
      tests('unit', 1),
      { numPassedTests: 40, numFailedTests: 0 },
      { passed: 40, failed: 1 },
    ],
    ['a test stage without a report is one failure', tests('keychain', 0), null, { passed: 0, failed: 1 }],
  ])('%s', (_name, stage, counts, expected) => {
    expect(stageOutcome(stage, counts)).toMatchObject(expected);
  });

  it('ends with one line over every stage, failures of every kind included', () => {
    const lines = summaryLines([
      stageOutcome(check('typecheck', 2), null),
      stageOutcome(tests('unit', 0), { numPassedTests: 40, numFailedTests: 0 }),
      stageOutcome(tests('integration', 1), { numPassedTests: 10, numFailedTests: 2 }),
    ]);
    expect(lines.at(-1)).toBe('50 passed, 3 failed');
    expect(lines[0]).toMatch(/^FAILED typecheck/);
    expect(lines[1]).toMatch(/^ok +unit .*40 passed, 0 failed$/);
  });
});
