import { existsSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lostSpendMarkerPath, writeLostSpendMarker } from '../../../proxy/store/lostSpendMarker.ts';
import { DAMAGED_SPEND_FILE_NAME, UnwrittenMirror } from '../../../proxy/store/write/unwrittenMirror.ts';
import { UNWRITTEN_SPEND_FILE_NAME, takeUnsavedMark, unsavedSpendPath } from '../../../proxy/store/write/unwrittenSpendFile.ts';

const NOW = new Date(2026, 4, 10, 12).getTime();
const NEXT_MONTH = new Date(2026, 5, 1, 0, 1).getTime();
const LAST_MONTH = new Date(2026, 3, 20, 12).getTime();
let dataDir = '';
let mirror: UnwrittenMirror | null = null;

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'airlock-lost-spend-'));
});
afterEach(() => {
  mirror?.close();
  mirror = null;
  rmSync(dataDir, { recursive: true, force: true });
});

describe('spend lost with a damaged log that gave nothing back', () => {
  it('is a ledger gap until the user deletes the marker, noticed at the next recheck', () => {
    writeLostSpendMarker(dataDir, NOW, join(dataDir, 'requests-damaged-x.db'));
    mirror = new UnwrittenMirror(dataDir, { kind: 'none' }, false, null, NOW);
    const gap = mirror.ledgerGap(NOW);
    expect(gap?.lastLossMs).toBe(NOW);
    expect(gap?.reason).toContain(`moved to ${join(dataDir, 'requests-damaged-x.db')}`);
    expect(gap?.reason).toContain(`to accept the loss now, delete ${lostSpendMarkerPath(dataDir)}`);

    rmSync(lostSpendMarkerPath(dataDir));
    mirror.recheckLostSpend(NOW);
    expect(mirror.ledgerGap(NOW)).toBeNull();
  });

  it('ends with the month that holds it, and its marker goes with it', () => {
    writeLostSpendMarker(dataDir, NOW, join(dataDir, 'requests-damaged-x.db'));
    mirror = new UnwrittenMirror(dataDir, { kind: 'none' }, false, null, NOW);
    expect(mirror.ledgerGap(NEXT_MONTH)).toBeNull();
    mirror.recheckLostSpend(NEXT_MONTH);
    expect(() => writeFileSync(lostSpendMarkerPath(dataDir), '', { flag: 'wx' })).not.toThrow();
  });

  it('a damaged spend record stands beside it, each with its own file to delete', () => {
    writeFileSync(join(dataDir, UNWRITTEN_SPEND_FILE_NAME), '{"version":1,"entr');
    writeLostSpendMarker(dataDir, NOW, join(dataDir, 'requests-damaged-x.db'));
    mirror = new UnwrittenMirror(
      dataDir,
      { kind: 'damaged', path: join(dataDir, UNWRITTEN_SPEND_FILE_NAME), savedAtMs: NOW },
      false,
      null,
      NOW,
    );
    rmSync(lostSpendMarkerPath(dataDir));
    mirror.recheckLostSpend(NOW);
    expect(mirror.ledgerGap(NOW)?.reason).toContain(join(dataDir, DAMAGED_SPEND_FILE_NAME));
  });

  it('a damaged spend record moved aside by an earlier start still stands at the next, until deleted', () => {
    writeFileSync(join(dataDir, UNWRITTEN_SPEND_FILE_NAME), '{"version":1,"entr');
    new UnwrittenMirror(
      dataDir,
      { kind: 'damaged', path: join(dataDir, UNWRITTEN_SPEND_FILE_NAME), savedAtMs: NOW },
      false,
      null,
      NOW,
    ).close();
    const moved = join(dataDir, DAMAGED_SPEND_FILE_NAME);
    utimesSync(moved, NOW / 1000, NOW / 1000);

    mirror = new UnwrittenMirror(dataDir, { kind: 'none' }, false, null, NOW);
    expect(mirror.ledgerGap(NOW)).toMatchObject({ lastLossMs: NOW });
    expect(mirror.startNotices.join(' ')).toContain(`is damaged (moved to ${moved})`);
    rmSync(moved);
    mirror.recheckLostSpend(NOW);
    expect(mirror.ledgerGap(NOW)).toBeNull();
  });

  // No cap's period holds last month's loss any more: ledgerGap admits caps, so the start must not say they are refused.
  it('a record moved aside last month is dropped at the first start of this month, with no notice', () => {
    const moved = join(dataDir, DAMAGED_SPEND_FILE_NAME);
    writeFileSync(moved, '{"version":1,"entr');
    utimesSync(moved, LAST_MONTH / 1000, LAST_MONTH / 1000);

    mirror = new UnwrittenMirror(dataDir, { kind: 'none' }, false, null, NOW);
    expect(mirror.ledgerGap(NOW)).toBeNull();
    expect(mirror.startNotices).toEqual([]);
    expect(existsSync(moved)).toBe(false);
  });

  it('an unsaved mark from last month is dropped at the first start of this month, with no notice', () => {
    writeFileSync(unsavedSpendPath(dataDir), '');
    utimesSync(unsavedSpendPath(dataDir), LAST_MONTH / 1000, LAST_MONTH / 1000);
    const unsaved = takeUnsavedMark(dataDir);
    expect(unsaved?.lastLossMs).toBe(LAST_MONTH);

    mirror = new UnwrittenMirror(dataDir, { kind: 'none' }, false, unsaved, NOW);
    expect(mirror.ledgerGap(NOW)).toBeNull();
    expect(mirror.startNotices).toEqual([]);
    expect(existsSync(unsaved?.path ?? '')).toBe(false);
  });
});
