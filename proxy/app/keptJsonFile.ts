import { existsSync, readFileSync, renameSync } from 'node:fs';
import { z } from 'zod';
import path from 'node:path';
import { writeFileAtomic } from './profiles/atomicWrite.ts';
import { asideName, type AsideKind } from '../core/asideName.ts';

/** What a file of this Airlock's shape and version held: the entries that could be read, and how many could not. */
export interface EntriesRead<T> {
  usable: T;
  entries: number;
  unread: number;
}

/**
 * Reads `{ version, refusals: [...] }` entry by entry: the entries of `entrySchema`'s shape are
 * usable, the others counted as unread; null for another shape or version.
 */
function versionedListReader<Entry>(version: number, entrySchema: z.ZodType<Entry>): (json: unknown) => EntriesRead<Entry[]> | null {
  const fileSchema = z.object({ version: z.literal(version), refusals: z.array(z.unknown()) });
  return (json) => {
    const file = fileSchema.safeParse(json);
    if (!file.success) return null;
    const usable = file.data.refusals.flatMap((entry) => {
      const parsed = entrySchema.safeParse(entry);
      return parsed.success ? [parsed.data] : [];
    });
    return { usable, entries: file.data.refusals.length, unread: file.data.refusals.length - usable.length };
  };
}

interface RefusalListOptions<Entry> {
  dataDir: string;
  fileName: string;
  version: number;
  entrySchema: z.ZodType<Entry>;
  /** One entry, said as "a max_tokens refusal", for a failed write. */
  what: string;
  /** What this run does when none could be read ("max_tokens refusals are learned again, one refused 400 per model"). */
  relearned: string;
  report: (message: string) => void;
  nowMs: number;
}

/**
 * A list of what gateways refused, kept as `{ version, refusals }` (reasoning_effort and max_tokens
 * refusals): what earlier runs learned, read at start, and a save for each one learned now. A
 * refusal not kept costs one 400 after the next start; the request itself is not the place to fail.
 */
export function keepRefusalList<Entry>(options: RefusalListOptions<Entry>): {
  known: Entry[];
  save: (all: Entry[]) => void;
  notice: string | null;
} {
  const file = keepJsonFile({
    dataDir: options.dataDir,
    fileName: options.fileName,
    readEntries: versionedListReader(options.version, options.entrySchema),
    empty: [],
    what: options.what,
    lossOnFailedWrite: 'it is learned again after a restart',
    usedInstead: (kept) =>
      kept === 0 ? options.relearned : `the ${kept} refusals it held that could be read are used, the rest learned again`,
    report: options.report,
    nowMs: options.nowMs,
  });
  return { known: file.read, save: (all) => file.save({ version: options.version, refusals: all }), notice: file.notice };
}

interface KeptJsonFile<T> {
  /** What the file held that could be read; the empty value when there was no file or nothing could be. */
  read: T;
  /** For the start notices: a file that could not be wholly read, where it went, what was kept. */
  notice: string | null;
  /** Writes the file atomically; a failure is reported, never thrown (see keepJsonFile). */
  save(content: unknown): void;
}

interface KeptJsonFileOptions<T> {
  dataDir: string;
  fileName: string;
  /** Reads the parsed JSON entry by entry, so one damaged entry does not cost the others; null when it is not a shape or version this Airlock writes. */
  readEntries: (json: unknown) => EntriesRead<T> | null;
  empty: T;
  /** What is kept, said as "a reasoning_effort refusal" or "capability results", for a failed write. */
  what: string;
  /** What a lost write costs the user, after the failure ("it is learned again after a restart"). */
  lossOnFailedWrite: string;
  /** What this run does instead, given how many entries could be read (0 when none). */
  usedInstead: (keptEntries: number) => string;
  /** Says a failed write as it happens (stderr): there is no start notice left to carry it. */
  report: (message: string) => void;
  nowMs: number;
}

interface FileReading<T> {
  read: T;
  keptEntries: number;
  /**
   * Why the file is not wholly usable; null when it is, or there is none. `unread`: reading it
   * failed (EIO, EMFILE, EACCES), which says nothing of what it holds: it is left where it is.
   */
  problem: { kind: AsideKind | 'unread'; reason: string } | null;
}

function readKept<T>(filePath: string, options: KeptJsonFileOptions<T>): FileReading<T> {
  const nothing = (problem: FileReading<T>['problem']): FileReading<T> => ({ read: options.empty, keptEntries: 0, problem });
  let text: string;
  try {
    text = readFileSync(filePath, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return nothing(null);
    return nothing({ kind: 'unread', reason: code ?? (error as Error).message });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return nothing({ kind: 'damaged', reason: 'it is not whole JSON' });
  }
  const entries = options.readEntries(json);
  if (entries === null) return nothing({ kind: 'foreign', reason: 'its shape or version is not one this Airlock writes' });
  const keptEntries = entries.entries - entries.unread;
  return {
    read: entries.usable,
    keptEntries,
    problem:
      entries.unread === 0 ? null : { kind: 'damaged', reason: `${entries.unread} of its ${entries.entries} entries could not be read` },
  };
}

/** `capabilities-damaged-20261127T141500Z.json`, a name no file holds yet. */
function freeAsideName(dataDir: string, fileName: string, kind: AsideKind, nowMs: number): string {
  const base = path.basename(fileName, '.json');
  let name = asideName(base, kind, nowMs, 1, '.json');
  for (let copy = 2; existsSync(path.join(dataDir, name)); copy += 1) name = asideName(base, kind, nowMs, copy, '.json');
  return path.join(dataDir, name);
}

/**
 * One of Airlock's JSON files in the data directory that keeps what it learned (capabilities.json,
 * reasoning-effort-refusals.json), read at start and written atomically. A file that cannot be
 * wholly read is the user's results: it is moved aside as it was, never overwritten, what could be
 * read is used, and a notice says so; one that cannot be moved is left alone and nothing is written
 * over it this run, as is one whose reading failed (a disk error, too many open files): that says
 * nothing of what it holds. A failed write is reported, not thrown: the writes come from requests and
 * background probes, where a throw would fail the request or end the process, for a cache.
 */
export function keepJsonFile<T>(options: KeptJsonFileOptions<T>): KeptJsonFile<T> {
  const filePath = path.join(options.dataDir, options.fileName);
  const { read, keptEntries, problem } = readKept(filePath, options);
  let notice: string | null = null;
  let writable = true;
  if (problem?.kind === 'unread') {
    writable = false;
    notice = `${filePath} could not be read (${problem.reason}): it is left as it was and nothing is written over it this run; ${options.usedInstead(0)}.`;
  } else if (problem !== null) {
    const what = problem.kind === 'damaged' ? `was damaged (${problem.reason})` : `is not one this Airlock writes (${problem.reason})`;
    const used = options.usedInstead(keptEntries);
    const aside = freeAsideName(options.dataDir, options.fileName, problem.kind, options.nowMs);
    try {
      renameSync(filePath, aside);
      notice = `${filePath} ${what}: it was moved to ${aside} as it was; ${used}.`;
    } catch (error) {
      writable = false;
      const cause = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      notice = `${filePath} ${what} and could not be moved aside (${cause}): it is left as it was and nothing is written over it this run; ${used}.`;
    }
  }
  const save = (content: unknown): void => {
    if (!writable) return;
    try {
      writeFileAtomic(filePath, `${JSON.stringify(content, null, 2)}\n`);
    } catch (error) {
      // The code, not the message: it names the write's random temp file, and a cause that differs
      // at each failed save would be a new notice (and OS notification) each time.
      const cause = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      options.report(`could not keep ${options.what} in ${filePath} (${cause}): ${options.lossOnFailedWrite}.`);
    }
  };
  return { read, notice, save };
}
