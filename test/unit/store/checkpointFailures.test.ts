import { describe, expect, it } from 'vitest';
import { NoticeBoard } from '../../../proxy/app/noticeBoard.ts';
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
      'WAL checkpoint failed: database or disk is full',
      'WAL checkpoint failed: database or disk is full',
      'WAL checkpoint failed: disk I/O error',
    ]);
  });

  it('a reminder is the same notice, not a new one (and a new OS notification) at each', () => {
    const board = new NoticeBoard({ knownSecrets: () => [] });
    const report = failureReporter((error) => board.report('request_log_failed', `request log: ${error.message}`));
    report('database or disk is full');
    const [first] = board.list();
    for (let check = 0; check < REPEATED_FAILURE_REMINDER_EVERY * 2; check += 1) report('database or disk is full');
    expect(board.list().map((notice) => notice.id)).toEqual([first?.id]);
  });
});
