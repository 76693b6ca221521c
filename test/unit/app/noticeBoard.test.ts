import { describe, expect, it, vi } from 'vitest';
import { NoticeBoard, requestLogNoticeKind } from '../../../proxy/app/noticeBoard.ts';
import { RequestLogStoppedError } from '../../../proxy/store/write/logThreadClient.ts';
import { findSentinel, SENTINEL_KEY } from '../../support/sentinel.ts';

function board() {
  let nowMs = 1_000;
  const notices = new NoticeBoard({ knownSecrets: () => [SENTINEL_KEY], nowMs: () => nowMs });
  return { notices, tick: () => (nowMs += 1_000) };
}

describe('NoticeBoard', () => {
  it('masks the key in a cause, in every form the proxy masks', () => {
    const { notices } = board();
    const shown = notices.report(
      'trace_export_failed',
      `collector said: bad header Bearer ${SENTINEL_KEY} (${encodeURIComponent(SENTINEL_KEY)})`,
    );
    expect(findSentinel(JSON.stringify(notices.list()))).toBeNull();
    expect(findSentinel(shown.cause)).toBeNull();
    expect(shown.cause).toContain('[redacted]');
  });

  it('keeps the names of files Airlock moved aside and its data directory readable, while a key of any shape is masked', () => {
    // No sk-, hex or Bearer shape, nor random enough: only knowing it masks it.
    const plainKey = 'gw_Plain_Key_Value_42';
    const dataDir = '/home/ada/.config/Airlock';
    const notices = new NoticeBoard({ knownSecrets: () => [plainKey], dataDir });
    const movedTo = `${dataDir}/capabilities-damaged-20261127T140700Z.json`;
    const setAside = `${dataDir}/capabilities.json was damaged (it is not whole JSON): it was moved to ${movedTo} as it was.`;
    // A key nobody told the board of, in three shapes: an sk- key, a random-looking token, and one
    // holding a time stamp like the moved file's (only the board's own paths are read as names).
    const unknownKeys = [
      'sk-proj-Zq8Xw2Vb6Nm4Lk9Jh3Gf5Dd',
      'AIzaSyB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY',
      'AIzaSyA1b2C3d4E-20261127T140700Z_x9Y8z7',
    ];
    notices.report('capabilities_file', setAside);
    notices.report('trace_export_failed', `collector said ${plainKey} and ${unknownKeys.join(' then ')}`);

    const [trace, capabilities] = notices.list();
    expect(capabilities?.cause).toBe(setAside);
    expect(trace?.cause).toBe('collector said [redacted] and [redacted] then [redacted] then [redacted]');
  });

  it('keeps one notice per kind, the newest replacing the older, each with its time and its kind’s fix', () => {
    const { notices, tick } = board();
    const first = notices.report('request_log_failed', 'the request log thread stopped');
    tick();
    const second = notices.report('request_log_failed', 'the request log thread stopped several times in a row');
    expect(notices.list()).toEqual([second]);
    expect(second.id).not.toBe(first.id);
    expect(second.atMs).toBe(2_000);
    expect(second.fix).not.toBe('');
  });

  it('a minor request log error later does not hide that logging stopped', () => {
    const { notices, tick } = board();
    const reportLogError = (error: Error) => notices.report(requestLogNoticeKind(error), `request log: ${error.message}`);
    const stopped = reportLogError(new RequestLogStoppedError('requests are no longer logged until Airlock restarts'));
    tick();
    const checkpoint = reportLogError(new Error('WAL checkpoint failed: database or disk is full'));
    expect(notices.list()).toEqual([checkpoint, stopped]);
    expect(stopped.fix).toMatch(/restart/i);
  });

  it('a repeat of the same problem while shown only moves its time: same id, so it does not notify again', () => {
    const { notices, tick } = board();
    const first = notices.report('capabilities_not_saved', 'ENOSPC');
    tick();
    const repeat = notices.report('capabilities_not_saved', 'ENOSPC');
    expect(repeat.id).toBe(first.id);
    expect(notices.list()).toEqual([{ ...first, atMs: 2_000 }]);
  });

  it('a dismissed notice stays away until it happens again, then comes back under a new id', () => {
    const { notices } = board();
    const first = notices.report('capabilities_not_saved', 'ENOSPC');
    expect(notices.dismiss(first.id)).toBe(true);
    expect(notices.list()).toEqual([]);
    expect(notices.dismiss(first.id)).toBe(false);
    const again = notices.report('capabilities_not_saved', 'ENOSPC');
    expect(notices.list()).toEqual([again]);
    expect(again.id).not.toBe(first.id);
  });

  it('lists newest first, a kind reported again moving to the front, and tells its listeners of each change', () => {
    const { notices } = board();
    let changes = 0;
    notices.onChange(() => {
      changes += 1;
    });
    notices.report('environment_key', 'a');
    notices.report('log_start', 'b');
    notices.report('trace_export_failed', 'c');
    notices.report('environment_key', 'd');
    expect(notices.list().map((notice) => notice.kind)).toEqual(['environment_key', 'trace_export_failed', 'log_start']);
    notices.resolve('trace_export_failed');
    expect(notices.list().map((notice) => notice.kind)).toEqual(['environment_key', 'log_start']);
    expect(changes).toBe(5);
  });

  it('a listener that throws neither escapes into the reporter nor keeps the later listeners from hearing', () => {
    const { notices } = board();
    const heard: string[] = [];
    notices.onChange(() => {
      throw new Error(`window gone ${SENTINEL_KEY}`);
    });
    notices.onChange(() => heard.push('tray'));
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      expect(() => notices.report('capabilities_not_saved', 'ENOSPC')).not.toThrow();
      expect(heard).toEqual(['tray']);
      // Said, masked, rather than lost.
      expect(consoleError).toHaveBeenCalledTimes(1);
      expect(findSentinel(JSON.stringify(consoleError.mock.calls))).toBeNull();
    } finally {
      consoleError.mockRestore();
    }
  });
});
