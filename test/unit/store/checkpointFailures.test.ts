import { describe, expect, it } from 'vitest';
import { failureReporter, REPEATED_FAILURE_REMINDER_EVERY } from '../../../proxy/store/write/walCheckpointer.ts';

describe('failureReporter (a checkpoint that fails once a second while the disk is full)', () => {
  it('says a failure once, again when its reason changes, and as a reminder every so many repeats', () => {
    const said: string[] = [];
    const report = failureReporter((error) => said.push(error.message));
    for (let check = 0; check < REPEATED_FAILURE_REMINDER_EVERY * 2 + 1; check += 1) report('database or disk is full');
    report('disk I/O error');
    report('disk I/O error');
    expect(said).toEqual([
      'WAL checkpoint failed: database or disk is full',
      `WAL checkpoint still failing (${REPEATED_FAILURE_REMINDER_EVERY} more times): database or disk is full`,
      `WAL checkpoint still failing (${REPEATED_FAILURE_REMINDER_EVERY * 2} more times): database or disk is full`,
      'WAL checkpoint failed: disk I/O error',
    ]);
  });
});
