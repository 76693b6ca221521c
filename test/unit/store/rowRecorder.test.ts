import { describe, expect, it } from 'vitest';
import type { RequestLogRow } from '../../../proxy/contracts/log.ts';
import { RowRecorder } from '../../../proxy/store/write/rowRecorder.ts';
import { rowFromStart } from '../../../proxy/store/write/rowDraft.ts';
import type { SpendEntry, UnwrittenState } from '../../../proxy/store/write/unwrittenSpend.ts';
import type { LogWriter } from '../../../proxy/store/write/writer.ts';
import { startEvent } from '../../support/lifecycleEvents.ts';

function row(id: string, costCredits: number): RequestLogRow {
  return { ...rowFromStart(startEvent(id)), state: 'done', status: 200, costCredits, usageSource: 'reported' };
}

/** A log database on a full disk: every write fails for want of space. */
const fullDiskWriter = {
  write: () => ({ outcome: 'failed', error: Object.assign(new Error('database or disk is full'), { errcode: 13 }), diskFull: true }),
} as unknown as LogWriter;

function fullDiskRecorder() {
  const saves: SpendEntry[][] = [];
  const reports: UnwrittenState[] = [];
  const recorder = new RowRecorder(fullDiskWriter, {
    store: {
      save: (entries) => {
        saves.push([...entries]);
        return null;
      },
      clear: () => {},
      hasRoom: () => false,
    },
    carried: [],
    onChange: (state) => reports.push(state),
    onError: (error) => {
      throw error;
    },
  });
  return { recorder, saves, reports };
}

const creditsOf = (entries: readonly SpendEntry[]): number => entries.reduce((sum, entry) => sum + entry.costCredits, 0);

describe('RowRecorder on a full disk', () => {
  it('saves the unwritten spend (an fsync) only when it changed, not at every retry', () => {
    const { recorder, saves, reports } = fullDiskRecorder();
    try {
      expect(recorder.write({ rows: [row('a', 1)], bodies: [] })).toBe('kept');
      recorder.publish();
      expect(saves).toHaveLength(1);
      for (let retry = 0; retry < 3; retry += 1) recorder.retry();
      expect(saves).toHaveLength(1);
      expect(reports).toHaveLength(1);

      recorder.write({ rows: [row('b', 2)], bodies: [] });
      recorder.retry();
      expect(saves).toHaveLength(2);
      expect(creditsOf(saves[1] ?? [])).toBe(3);
      expect(reports.at(-1)?.keptRows).toBe(2);
    } finally {
      recorder.close();
    }
  });
});

/**
 * The disk fills between a stream's start and its end (its in-flight row written, then nothing
 * fits): the end's batch fails with its bodies and then without them, and its row waits in memory.
 * Written once space returns, it has no bodies, and its detail must say why, as every later row's does.
 */
describe('RowRecorder when the disk fills under a batch that carries bodies', () => {
  it('writes the row it kept, once there is room, noting that its bodies were not kept', () => {
    const written: RequestLogRow[] = [];
    let diskFull = true;
    const fillingWriter = {
      write: (batch: { rows: RequestLogRow[] }) => {
        if (diskFull)
          return { outcome: 'failed', error: Object.assign(new Error('database or disk is full'), { errcode: 13 }), diskFull: true };
        written.push(...batch.rows);
        return { outcome: 'written' };
      },
    } as unknown as LogWriter;
    const recorder = new RowRecorder(fillingWriter, {
      store: { save: () => null, clear: () => {}, hasRoom: () => !diskFull },
      carried: [],
      onChange: () => {},
      onError: (error) => {
        throw error;
      },
    });
    try {
      const record = {
        requestHeaders: {},
        responseHeaders: {},
        requestBody: '{"messages":[]}',
        requestTruncated: false,
        responseBody: null,
        responseTruncated: false,
        streamText: 'hello',
        rawEvents: 'data: [DONE]\n\n',
        rawEventOffsetsMs: [1],
      };
      expect(recorder.write({ rows: [row('streamed', 1)], bodies: [{ requestId: 'streamed', record }] })).toBe('kept');
      diskFull = false;
      recorder.retry();
      expect(written.map((each) => each.id)).toEqual(['streamed']);
      expect(written[0]?.notes).toEqual([expect.stringMatching(/^Bodies not kept: .*full/)]);
      expect(written[0]?.costCredits).toBe(1);
    } finally {
      recorder.close();
    }
  });
});

/**
 * Rows kept after a refusal that was not for space (a locked database): those queued behind them
 * lost their bodies for the same refusal, and said the disk was full and to free space, which
 * changes nothing.
 */
describe('RowRecorder behind rows a locked database refused', () => {
  it('notes the refusal, not a full disk, on the queued rows that lost their bodies', () => {
    const written: RequestLogRow[] = [];
    let locked = true;
    const lockedWriter = {
      write: (batch: { rows: RequestLogRow[] }) => {
        if (locked) return { outcome: 'failed', error: Object.assign(new Error('database is locked'), { errcode: 5 }), diskFull: false };
        written.push(...batch.rows);
        return { outcome: 'written' };
      },
    } as unknown as LogWriter;
    const reported: unknown[] = [];
    const recorder = new RowRecorder(lockedWriter, {
      store: { save: () => null, clear: () => {}, hasRoom: () => true },
      carried: [],
      onChange: () => {},
      onError: (error) => reported.push(error),
    });
    try {
      expect(recorder.write({ rows: [row('first', 1)], bodies: [] })).toBe('kept');
      const record = {
        requestHeaders: {},
        responseHeaders: {},
        requestBody: '{"messages":[]}',
        requestTruncated: false,
        responseBody: '{}',
        responseTruncated: false,
        streamText: null,
        rawEvents: null,
        rawEventOffsetsMs: null,
      };
      expect(recorder.write({ rows: [row('queued', 1)], bodies: [{ requestId: 'queued', record }] })).toBe('kept');
      locked = false;
      recorder.retry();
      expect(written.map((each) => each.id)).toEqual(['first', 'queued']);
      expect(written[1]?.notes).toEqual([expect.stringMatching(/^Bodies not kept: .*database is locked/)]);
      expect(written[1]?.notes?.join(' ')).not.toMatch(/full|Free disk space/i);
      expect(reported).toHaveLength(1);
    } finally {
      recorder.close();
    }
  });
});
