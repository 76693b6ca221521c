import {
  closeSync,
  fsyncSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statfsSync,
  statSync,
  utimesSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { isDiskFullError } from './writer.ts';
import type { SpendEntry } from './unwrittenSpend.ts';

/**
 * The spend of requests the log could not write, saved beside the database so a restart counts it
 * (the budgets' ledger is seeded from the log). It is small (one entry per day, profile, client
 * and model) and rewritten whole, atomically, whenever that spend changes; deleted once the rows
 * (or summary rows standing for them) are in the database.
 */
export const UNWRITTEN_SPEND_FILE_NAME = 'unwritten-spend.json';
/**
 * Room kept on the disk for that file: on a full disk even a few kilobytes cannot be written, so
 * this much is taken while there is space, and given back (deleted) to write the file when there is not.
 */
export const SPACE_RESERVE_FILE_NAME = 'unwritten-spend.reserve';
export const SPACE_RESERVE_BYTES = 256 * 1024;
/**
 * Left, empty, while spend could not be saved: a stop or a crash then forgets spend the record
 * lacks. Its modification time is the last such spend (touched at each failed save: no new room
 * needed); the next start turns it into a loss that keeps capped budgets refused.
 */
export const UNSAVED_SPEND_FILE_NAME = 'unwritten-spend.unsaved';

export function unsavedSpendPath(dataDir: string): string {
  return join(dataDir, UNSAVED_SPEND_FILE_NAME);
}

/** An earlier run's mark is moved here at start, where the user deletes it to accept the loss. */
export const UNSAVED_LOST_FILE_NAME = 'unwritten-spend.lost';

export interface UnsavedMark {
  path: string;
  /** The last spend that could not be saved. */
  lastLossMs: number;
}

/**
 * The loss an earlier run left by spend it could not save: its mark is moved to the lost file
 * (rename keeps its time; this run's own failures make a new mark), which stands at every start
 * until the user deletes it or its month ends. Null without one. Taken before anything at start
 * can clear the mark.
 */
export function takeUnsavedMark(dataDir: string): UnsavedMark | null {
  const mark = unsavedSpendPath(dataDir);
  const lost = join(dataDir, UNSAVED_LOST_FILE_NAME);
  try {
    renameSync(mark, lost);
  } catch (error) {
    // It could not be moved: it stands where it is.
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return { path: mark, lastLossMs: modifiedAtMs(mark) };
  }
  try {
    return { path: lost, lastLossMs: statSync(lost).mtimeMs };
  } catch {
    return null;
  }
}

function markUnsaved(dataDir: string, nowMs: number): void {
  const path = unsavedSpendPath(dataDir);
  try {
    closeSync(openSync(path, 'a', 0o600));
    utimesSync(path, nowMs / 1000, nowMs / 1000);
  } catch {
    // Not even a name fits: nothing more can be left for the next start.
  }
}
/** Below this much free space, retrying the rows would only eat the room the saved spend needs. */
const MIN_FREE_BYTES_TO_RETRY = 2 * SPACE_RESERVE_BYTES;

const FORMAT_VERSION = 1;
const COUNT_FIELDS = [
  'requests',
  'errors',
  'unpricedRequests',
  'inputTokens',
  'outputTokens',
  'cachedInputTokens',
  'reasoningTokens',
] as const;
const NAME_FIELDS = ['profileId', 'clientName', 'model'] as const;

/**
 * The saved entries, or null if the file is not what saveUnwrittenSpend writes. Checked by hand:
 * the log thread reads it at start, and loading a schema library there would delay its first write.
 */
function entriesOf(json: unknown): SpendEntry[] | null {
  if (typeof json !== 'object' || json === null) return null;
  const file = json as { version?: unknown; entries?: unknown };
  if (file.version !== FORMAT_VERSION || !Array.isArray(file.entries)) return null;
  return file.entries.every(isEntry) ? (file.entries as SavedEntry[]).map(withStatement) : null;
}

/**
 * An entry saved before the gateway's statement was kept has none: its requests all count as
 * without one, as they did then, so the gateway's sum beside them is never read as complete.
 */
type SavedEntry = Omit<SpendEntry, 'gatewayCost' | 'unstatedRequests'> & Partial<Pick<SpendEntry, 'gatewayCost' | 'unstatedRequests'>>;

function withStatement(entry: SavedEntry): SpendEntry {
  return {
    ...entry,
    gatewayCost: entry.gatewayCost ?? null,
    unstatedRequests: entry.unstatedRequests ?? entry.requests,
  };
}

function isEntry(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const entry = value as Record<string, unknown>;
  const isCount = (field: string): boolean => Number.isInteger(entry[field]);
  return (
    Number.isInteger(entry.dayStartMs) &&
    typeof entry.costCredits === 'number' &&
    Number.isFinite(entry.costCredits) &&
    COUNT_FIELDS.every(isCount) &&
    NAME_FIELDS.every((field) => entry[field] === null || typeof entry[field] === 'string') &&
    (entry.gatewayCost === undefined || entry.gatewayCost === null || Number.isFinite(entry.gatewayCost)) &&
    (entry.unstatedRequests === undefined || Number.isInteger(entry.unstatedRequests))
  );
}

export type SavedSpend =
  | { kind: 'none' }
  | { kind: 'saved'; path: string; entries: SpendEntry[] }
  /** Unreadable: what it held is unknown. `savedAtMs` is its last change, the latest spend it can have held. */
  | { kind: 'damaged'; path: string; savedAtMs: number };

export function unwrittenSpendPath(dataDir: string): string {
  return join(dataDir, UNWRITTEN_SPEND_FILE_NAME);
}

export function readSavedSpend(dataDir: string): SavedSpend {
  const path = unwrittenSpendPath(dataDir);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'none' };
    return { kind: 'damaged', path, savedAtMs: modifiedAtMs(path) };
  }
  try {
    const entries = entriesOf(JSON.parse(text));
    if (entries !== null) return { kind: 'saved', path, entries };
  } catch {
    // Not JSON: damaged, as below.
  }
  return { kind: 'damaged', path, savedAtMs: modifiedAtMs(path) };
}

function modifiedAtMs(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return Date.now();
  }
}

/** Takes the room while there is some; a failure only means there is no room to take. */
export function reserveSpace(dataDir: string): void {
  const path = join(dataDir, SPACE_RESERVE_FILE_NAME);
  try {
    if (statSync(path).size === SPACE_RESERVE_BYTES) return;
  } catch {
    // Missing: made below.
  }
  try {
    writeFileSync(path, Buffer.alloc(SPACE_RESERVE_BYTES), { mode: 0o600 });
  } catch {
    rmSync(path, { force: true });
  }
}

export function hasRoomToRetry(dataDir: string): boolean {
  try {
    const stats = statfsSync(dataDir);
    return Number(stats.bavail) * Number(stats.bsize) >= MIN_FREE_BYTES_TO_RETRY;
  } catch {
    return true;
  }
}

/**
 * Saves the entries (replacing the file in one rename, never leaving half a file), giving back the
 * reserved room first if the disk is full. Returns null when saved, else why not.
 */
export function saveUnwrittenSpend(dataDir: string, entries: readonly SpendEntry[], nowMs: number): string | null {
  const text = JSON.stringify({ version: FORMAT_VERSION, savedAtMs: nowMs, entries });
  const failure = writeWithReserve(dataDir, text);
  // The record holds all of this run's unwritten spend again once a save succeeds.
  if (failure === null) rmSync(unsavedSpendPath(dataDir), { force: true });
  else markUnsaved(dataDir, nowMs);
  return failure;
}

function writeWithReserve(dataDir: string, text: string): string | null {
  try {
    writeAtomically(dataDir, text);
    return null;
  } catch (error) {
    if (!isDiskFullError(error)) return describe(error);
  }
  rmSync(join(dataDir, SPACE_RESERVE_FILE_NAME), { force: true });
  try {
    writeAtomically(dataDir, text);
    return null;
  } catch (error) {
    return describe(error);
  }
}

/** The spend is in the database now: the file goes, and the room is taken again for next time. */
export function clearUnwrittenSpend(dataDir: string): void {
  rmSync(unwrittenSpendPath(dataDir), { force: true });
  rmSync(unsavedSpendPath(dataDir), { force: true });
  reserveSpace(dataDir);
}

function writeAtomically(dataDir: string, text: string): void {
  const path = unwrittenSpendPath(dataDir);
  const temporary = `${path}.tmp`;
  try {
    // Made new, never reused: a file left there keeps its own mode through the rename, and a link there is written through.
    rmSync(temporary, { force: true });
    const fd = openSync(temporary, 'wx', 0o600);
    try {
      writeSync(fd, text);
      // On disk before the rename: after a power cut the file is the old one or the new one, whole.
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
