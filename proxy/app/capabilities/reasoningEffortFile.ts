import { z } from 'zod';
import { ReasoningEffortRefusals } from '../../forward/reasoningEffortRefusals.ts';
import { keepRefusalList } from '../keptJsonFile.ts';

/** Beside `capabilities.json`: what the gateways said of their models, kept in the data directory. */
export const REASONING_EFFORT_REFUSALS_FILE_NAME = 'reasoning-effort-refusals.json';
const FORMAT_VERSION = 1;

const entrySchema = z.object({
  profileId: z.string(),
  baseUrl: z.string(),
  model: z.string(),
  levels: z.array(z.string()),
});
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
  const kept = keepRefusalList({
    dataDir,
    fileName: REASONING_EFFORT_REFUSALS_FILE_NAME,
    version: FORMAT_VERSION,
    entrySchema,
    what: 'a reasoning_effort refusal',
    relearned: 'reasoning_effort refusals are learned again, one refused 400 per model and level',
    report,
    nowMs,
  });
  return { refusals: new ReasoningEffortRefusals({ known: kept.known, onLearned: kept.save }), notice: kept.notice };
}
