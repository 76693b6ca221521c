import { z } from 'zod';
import { ReasoningEffortRefusals, type RefusedEfforts } from '../../forward/reasoningEffortRefusals.ts';
import { keepJsonFile, versionedListReader } from '../keptJsonFile.ts';

/** Beside `capabilities.json`: what the gateways said of their models, kept in the data directory. */
export const REASONING_EFFORT_REFUSALS_FILE_NAME = 'reasoning-effort-refusals.json';
const FORMAT_VERSION = 1;

const entrySchema = z.object({
  profileId: z.string(),
  baseUrl: z.string(),
  model: z.string(),
  levels: z.array(z.string()),
});
const readRefusals = versionedListReader(FORMAT_VERSION, entrySchema);

interface KeptReasoningEffortRefusals {
  refusals: ReasoningEffortRefusals;
  /** For the start notices: a file that could not be wholly read, where it went, what was kept. */
  notice: string | null;
}

/**
 * The `reasoning_effort` refusals earlier runs learned, read at start, and each one learned now
 * written at once (keptJsonFile.ts, as capabilities.json), so a restart does not pay the refused
 * 400 again per model and level.
 */
export function keepReasoningEffortRefusals(
  dataDir: string,
  report: (message: string) => void,
  nowMs: number = Date.now(),
): KeptReasoningEffortRefusals {
  const file = keepJsonFile({
    dataDir,
    fileName: REASONING_EFFORT_REFUSALS_FILE_NAME,
    readEntries: readRefusals,
    empty: [],
    what: 'a reasoning_effort refusal',
    // A refusal not kept costs one 400 after the next start; the request itself is not the place to fail.
    lossOnFailedWrite: 'it is learned again after a restart',
    usedInstead: (kept) =>
      kept === 0
        ? 'reasoning_effort refusals are learned again, one refused 400 per model and level'
        : `the ${kept} refusals it held that could be read are used, the rest learned again`,
    report,
    nowMs,
  });
  const save = (all: RefusedEfforts[]): void => file.save({ version: FORMAT_VERSION, refusals: all });
  return { refusals: new ReasoningEffortRefusals({ known: file.read, onLearned: save }), notice: file.notice };
}
