import { existsSync, readFileSync, renameSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { ReasoningEffortRefusals, type RefusedEfforts } from '../../forward/reasoningEffortRefusals.ts';
import { writeFileAtomic } from '../profiles/atomicWrite.ts';

/** Beside `capabilities.json`: what the gateways said of their models, kept in the data directory. */
export const REASONING_EFFORT_REFUSALS_FILE_NAME = 'reasoning-effort-refusals.json';
const FORMAT_VERSION = 1;

const fileSchema = z.object({ version: z.literal(FORMAT_VERSION), refusals: z.array(z.unknown()) });
const entrySchema = z.object({
  profileId: z.string(),
  baseUrl: z.string(),
  model: z.string(),
  levels: z.array(z.string()),
});

type AsideKind = 'damaged' | 'foreign';

interface FileReading {
  refusals: RefusedEfforts[];
  /** Why the file is not wholly usable; null when it is, or there is none. */
  problem: { kind: AsideKind; reason: string } | null;
}

function readRefusals(filePath: string): FileReading {
  let text: string;
  try {
    text = readFileSync(filePath, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { refusals: [], problem: null };
    return { refusals: [], problem: { kind: 'damaged', reason: `it could not be read: ${code ?? (error as Error).message}` } };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { refusals: [], problem: { kind: 'damaged', reason: 'it is not whole JSON' } };
  }
  const file = fileSchema.safeParse(json);
  if (!file.success) return { refusals: [], problem: { kind: 'foreign', reason: 'its shape or version is not one this Airlock writes' } };
  // Entry by entry: one damaged entry must not cost the others.
  const refusals = file.data.refusals.flatMap((entry) => {
    const parsed = entrySchema.safeParse(entry);
    return parsed.success ? [parsed.data] : [];
  });
  const unread = file.data.refusals.length - refusals.length;
  return {
    refusals,
    problem: unread === 0 ? null : { kind: 'damaged', reason: `${unread} of its ${file.data.refusals.length} entries could not be read` },
  };
}

/** `reasoning-effort-refusals-damaged-20261127T141500Z.json`, a name no file holds yet. */
function freeAsideName(dataDir: string, kind: AsideKind, nowMs: number): string {
  const stamp = new Date(nowMs)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}Z$/, 'Z');
  const base = `${path.basename(REASONING_EFFORT_REFUSALS_FILE_NAME, '.json')}-${kind}-${stamp}`;
  let name = `${base}.json`;
  for (let attempt = 2; existsSync(path.join(dataDir, name)); attempt += 1) name = `${base}-${attempt}.json`;
  return path.join(dataDir, name);
}

interface KeptReasoningEffortRefusals {
  refusals: ReasoningEffortRefusals;
  /** For the start notices: a file that could not be wholly read, where it went, what was kept. */
  notice: string | null;
}

/**
 * The `reasoning_effort` refusals earlier runs learned, read at start, and each one learned now
 * written at once (atomically, as capabilities.json), so a restart does not pay the refused 400
 * again per model and level. A file that cannot be wholly read is moved aside as it was, never
 * overwritten, with what could be read kept and a notice; one that cannot be moved is left alone
 * and nothing is written over it this run.
 */
export function keepReasoningEffortRefusals(
  dataDir: string,
  report: (message: string) => void,
  nowMs: number = Date.now(),
): KeptReasoningEffortRefusals {
  const filePath = path.join(dataDir, REASONING_EFFORT_REFUSALS_FILE_NAME);
  const { refusals, problem } = readRefusals(filePath);
  let notice: string | null = null;
  let writable = true;
  if (problem !== null) {
    const what = problem.kind === 'damaged' ? `was damaged (${problem.reason})` : `is not one this Airlock writes (${problem.reason})`;
    const used =
      refusals.length === 0
        ? 'reasoning_effort refusals are learned again, one refused 400 per model and level'
        : `the ${refusals.length} refusals it held that could be read are used, the rest learned again`;
    const aside = freeAsideName(dataDir, problem.kind, nowMs);
    try {
      renameSync(filePath, aside);
      notice = `${filePath} ${what}: it was moved to ${aside} as it was; ${used}.`;
    } catch (error) {
      writable = false;
      const cause = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      notice = `${filePath} ${what} and could not be moved aside (${cause}): it is left as it was and nothing is written over it this run; ${used}.`;
    }
  }
  const save = (all: RefusedEfforts[]): void => {
    if (!writable) return;
    try {
      writeFileAtomic(filePath, `${JSON.stringify({ version: FORMAT_VERSION, refusals: all }, null, 2)}\n`);
    } catch (error) {
      // A refusal not kept costs one 400 after the next start; the request itself is not the place to fail.
      report(
        `could not keep a reasoning_effort refusal in ${filePath} (${(error as Error).message}): it is learned again after a restart.`,
      );
    }
  };
  return { refusals: new ReasoningEffortRefusals({ known: refusals, onLearned: save }), notice };
}
