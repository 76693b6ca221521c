/**
 * The closing lines of `npm test` (test/run-all.sh): one line per stage, then "N passed, N failed"
 * over all of them. A test counts once; a check (typecheck, lint, ...) counts as one. A test stage
 * that failed without failing a test (a file that did not load, an error outside a test, no
 * report at all) counts as one failure, so a broken stage is never read as a pass. Exits 1 if
 * anything failed. Argument: the results directory holding stages.tsv and vitest-<stage>.json.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface StageRecord {
  kind: 'check' | 'tests';
  name: string;
  exitCode: number;
  wallSeconds: number;
}

export interface VitestCounts {
  numPassedTests: number;
  numFailedTests: number;
}

export interface StageOutcome {
  stage: StageRecord;
  passed: number;
  failed: number;
}

export function parseStages(tsv: string): StageRecord[] {
  return tsv
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [kind, name, exitCode, wallSeconds] = line.split('\t');
      return { kind: kind === 'tests' ? 'tests' : 'check', name: name ?? '', exitCode: Number(exitCode), wallSeconds: Number(wallSeconds) };
    });
}

export function stageOutcome(stage: StageRecord, counts: VitestCounts | null): StageOutcome {
  const ok = stage.exitCode === 0;
  if (stage.kind === 'check') return { stage, passed: ok ? 1 : 0, failed: ok ? 0 : 1 };
  const passed = counts?.numPassedTests ?? 0;
  const failedTests = counts?.numFailedTests ?? 0;
  return { stage, passed, failed: ok && counts !== null ? failedTests : Math.max(failedTests, 1) };
}

export function summaryLines(outcomes: readonly StageOutcome[]): string[] {
  const lines = outcomes.map(({ stage, passed, failed }) => {
    const verdict = stage.exitCode === 0 && failed === 0 ? 'ok    ' : 'FAILED';
    const counts = stage.kind === 'tests' ? `  ${passed} passed, ${failed} failed` : '';
    return `${verdict} ${stage.name.padEnd(12)} ${String(stage.wallSeconds).padStart(4)} s${counts}`;
  });
  const passed = outcomes.reduce((sum, outcome) => sum + outcome.passed, 0);
  const failed = outcomes.reduce((sum, outcome) => sum + outcome.failed, 0);
  lines.push(`${passed} passed, ${failed} failed`);
  return lines;
}

function readCounts(resultsDir: string, stage: StageRecord): VitestCounts | null {
  const reportPath = path.join(resultsDir, `vitest-${stage.name}.json`);
  if (stage.kind !== 'tests' || !existsSync(reportPath)) return null;
  try {
    return JSON.parse(readFileSync(reportPath, 'utf8')) as VitestCounts;
  } catch {
    return null;
  }
}

if (import.meta.main) {
  const resultsDir = process.argv[2] ?? 'test-results';
  const stages = parseStages(readFileSync(path.join(resultsDir, 'stages.tsv'), 'utf8'));
  const outcomes = stages.map((stage) => stageOutcome(stage, readCounts(resultsDir, stage)));
  console.log('');
  for (const line of summaryLines(outcomes)) console.log(line);
  process.exit(outcomes.some((outcome) => outcome.failed > 0) ? 1 : 0);
}
