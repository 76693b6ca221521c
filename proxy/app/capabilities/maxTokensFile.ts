import { z } from 'zod';
import { MaxTokensRefusals, type MaxTokensRefusal } from '../../forward/maxTokensRefusals.ts';
import { keepJsonFile, versionedListReader } from '../keptJsonFile.ts';

/** Beside `reasoning-effort-refusals.json`: the models whose gateway refused chat's `max_tokens`. */
export const MAX_TOKENS_REFUSALS_FILE_NAME = 'max-tokens-refusals.json';
const FORMAT_VERSION = 1;

const entrySchema = z.object({ profileId: z.string(), baseUrl: z.string(), model: z.string() });
const readRefusals = versionedListReader(FORMAT_VERSION, entrySchema);

interface KeptMaxTokensRefusals {
  refusals: MaxTokensRefusals;
  /** For the start notices: a file that could not be wholly read, where it went, what was kept. */
  notice: string | null;
}

/**
 * The `max_tokens` refusals earlier runs learned, read at start, and each one learned now written at
 * once (keptJsonFile.ts, as the reasoning_effort refusals), so a restart does not pay the refused 400
 * again per model.
 */
export function keepMaxTokensRefusals(
  dataDir: string,
  report: (message: string) => void,
  nowMs: number = Date.now(),
): KeptMaxTokensRefusals {
  const file = keepJsonFile({
    dataDir,
    fileName: MAX_TOKENS_REFUSALS_FILE_NAME,
    readEntries: readRefusals,
    empty: [],
    what: 'a max_tokens refusal',
    // A refusal not kept costs one 400 after the next start; the request itself is not the place to fail.
    lossOnFailedWrite: 'it is learned again after a restart',
    usedInstead: (kept) =>
      kept === 0
        ? 'max_tokens refusals are learned again, one refused 400 per model'
        : `the ${kept} refusals it held that could be read are used, the rest learned again`,
    report,
    nowMs,
  });
  const save = (all: MaxTokensRefusal[]): void => file.save({ version: FORMAT_VERSION, refusals: all });
  return { refusals: new MaxTokensRefusals({ known: file.read, onLearned: save }), notice: file.notice };
}
