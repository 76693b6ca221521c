import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SpendEntry } from '../../../proxy/store/write/unwrittenSpend.ts';
import {
  clearUnwrittenSpend,
  readSavedSpend,
  reserveSpace,
  saveUnwrittenSpend,
  SPACE_RESERVE_BYTES,
  SPACE_RESERVE_FILE_NAME,
  UNWRITTEN_SPEND_FILE_NAME,
} from '../../../proxy/store/write/unwrittenSpendFile.ts';
import { tempDirPerTest } from './tempLog.ts';

const dataDir = tempDirPerTest('airlock-unwritten-');
const ENTRY: SpendEntry = {
  dayStartMs: Date.UTC(2026, 2, 15),
  profileId: 'main',
  clientName: null,
  model: 'gpt-4o',
  requests: 3,
  errors: 1,
  costCredits: 0.000042,
  unpricedRequests: 0,
  inputTokens: 30,
  outputTokens: 6,
  cachedInputTokens: 0,
  reasoningTokens: 0,
  gatewayCost: null,
  unstatedRequests: 0,
};

describe('the saved record of unwritten spend', () => {
  it('is saved whole, read back exactly, and gives way to the reserve once cleared', () => {
    expect(readSavedSpend(dataDir())).toEqual({ kind: 'none' });
    expect(saveUnwrittenSpend(dataDir(), [ENTRY], 1)).toBeNull();
    expect(readSavedSpend(dataDir())).toEqual({ kind: 'saved', path: join(dataDir(), UNWRITTEN_SPEND_FILE_NAME), entries: [ENTRY] });
    expect(statSync(join(dataDir(), UNWRITTEN_SPEND_FILE_NAME)).mode & 0o777).toBe(0o600);
    expect(readdirSync(dataDir())).toEqual([UNWRITTEN_SPEND_FILE_NAME]);

    clearUnwrittenSpend(dataDir());
    expect(readSavedSpend(dataDir())).toEqual({ kind: 'none' });
    expect(statSync(join(dataDir(), SPACE_RESERVE_FILE_NAME)).size).toBe(SPACE_RESERVE_BYTES);
  });

  it("saved before the gateway's statement was kept: its requests count as without one, as they did", () => {
    const { gatewayCost: _gatewayCost, unstatedRequests: _unstated, ...earlier } = { ...ENTRY, gatewayCost: 0.5 };
    writeFileSync(join(dataDir(), UNWRITTEN_SPEND_FILE_NAME), JSON.stringify({ version: 1, savedAtMs: 1, entries: [earlier] }));
    const read = readSavedSpend(dataDir());
    expect(read.kind === 'saved' && read.entries).toEqual([{ ...ENTRY, gatewayCost: null, unstatedRequests: ENTRY.requests }]);
  });

  it.each([
    ['cut short', '{"version":1,"entries":[{"dayStartMs":'],
    ['another version', JSON.stringify({ version: 2, savedAtMs: 1, entries: [] })],
    ['an entry of the wrong shape', JSON.stringify({ version: 1, savedAtMs: 1, entries: [{ ...ENTRY, requests: 'three' }] })],
    ['a statement of the wrong shape', JSON.stringify({ version: 1, savedAtMs: 1, entries: [{ ...ENTRY, gatewayCost: 'free' }] })],
  ])('is damaged when %s, with the time it last changed', (_name, text) => {
    writeFileSync(join(dataDir(), UNWRITTEN_SPEND_FILE_NAME), text);
    const read = readSavedSpend(dataDir());
    expect(read).toMatchObject({ kind: 'damaged', path: join(dataDir(), UNWRITTEN_SPEND_FILE_NAME) });
    expect(read.kind === 'damaged' && read.savedAtMs).toBeGreaterThan(0);
  });

  it('says why when it cannot be saved, and leaves no temporary file behind', () => {
    mkdirSync(join(dataDir(), UNWRITTEN_SPEND_FILE_NAME, 'taken'), { recursive: true });
    expect(saveUnwrittenSpend(dataDir(), [ENTRY], 1)).toMatch(/EISDIR|directory/i);
    expect(existsSync(join(dataDir(), `${UNWRITTEN_SPEND_FILE_NAME}.tmp`))).toBe(false);
  });

  // Opened with 'w', a temporary file already there kept its mode through the rename, and a link
  // there was written through: the record would be readable by others, or land outside the data dir.
  it('is 0600 and in the data directory whatever stood at its temporary name', () => {
    const temporary = join(dataDir(), `${UNWRITTEN_SPEND_FILE_NAME}.tmp`);
    const outside = join(dataDir(), 'outside', 'shared.json');
    mkdirSync(join(dataDir(), 'outside'));
    writeFileSync(outside, 'theirs', { mode: 0o644 });
    writeFileSync(temporary, 'left by a crash', { mode: 0o644 });
    expect(saveUnwrittenSpend(dataDir(), [ENTRY], 1)).toBeNull();
    const saved = join(dataDir(), UNWRITTEN_SPEND_FILE_NAME);
    expect(statSync(saved).mode & 0o777).toBe(0o600);

    symlinkSync(outside, temporary);
    expect(saveUnwrittenSpend(dataDir(), [ENTRY], 2)).toBeNull();
    expect(lstatSync(saved).isSymbolicLink()).toBe(false);
    expect(statSync(saved).mode & 0o777).toBe(0o600);
    expect(readFileSync(outside, 'utf8')).toBe('theirs');
    expect(readSavedSpend(dataDir())).toMatchObject({ kind: 'saved', entries: [ENTRY] });
  });

  it('takes the reserve once, at its size', () => {
    reserveSpace(dataDir());
    reserveSpace(dataDir());
    expect(readdirSync(dataDir())).toEqual([SPACE_RESERVE_FILE_NAME]);
    expect(statSync(join(dataDir(), SPACE_RESERVE_FILE_NAME)).size).toBe(SPACE_RESERVE_BYTES);
  });
});
