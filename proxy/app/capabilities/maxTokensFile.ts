import { z } from 'zod';
import { MaxTokensRefusals } from '../../forward/maxTokensRefusals.ts';
import { keepRefusalList } from '../keptJsonFile.ts';

/** Beside `reasoning-effort-refusals.json`: the models whose gateway refused chat's `max_tokens`. */
export const MAX_TOKENS_REFUSALS_FILE_NAME = 'max-tokens-refusals.json';
const FORMAT_VERSION = 1;

const entrySchema = z.object({ profileId: z.string(), baseUrl: z.string(), model: z.string() });

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
  const kept = keepRefusalList({
    dataDir,
    fileName: MAX_TOKENS_REFUSALS_FILE_NAME,
    version: FORMAT_VERSION,
    entrySchema,
    what: 'a max_tokens refusal',
    relearned: 'max_tokens refusals are learned again, one refused 400 per model',
    report,
    nowMs,
  });
  return { refusals: new MaxTokensRefusals({ known: kept.known, onLearned: kept.save }), notice: kept.notice };
}
