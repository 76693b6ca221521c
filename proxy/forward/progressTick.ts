import type { TokenUsage } from '../contracts/usage.ts';

/** A stream's estimated usage and cost for the UTF-8 bytes of text it has received so far. */
export type ProgressEstimate = (outputBytes: number) => { usage: TokenUsage; costCredits: number | null };

/** How often a stream's in-flight row gets its estimate: what a crash can lose of its spend. */
export const STREAM_PROGRESS_INTERVAL_MS = 1_000;

/**
 * A tick every STREAM_PROGRESS_INTERVAL_MS from one unref'd timer, so a delta compares two integers
 * to know whether its stream's estimate is due, instead of reading the clock. It runs only while
 * a stream with an estimate is open: an idle proxy (or a stopped one) wakes nothing.
 */
let tick = 0;
let progressTimer: NodeJS.Timeout | null = null;
let streamsEstimating = 0;

export function streamStartsEstimating(): void {
  streamsEstimating += 1;
  if (progressTimer !== null) return;
  progressTimer = setInterval(() => {
    tick += 1;
  }, STREAM_PROGRESS_INTERVAL_MS);
  progressTimer.unref();
}

export function streamStopsEstimating(): void {
  streamsEstimating -= 1;
  if (streamsEstimating > 0 || progressTimer === null) return;
  clearInterval(progressTimer);
  progressTimer = null;
}

/** The current tick: a stream whose last estimate carries another tick is due one. */
export const progressTick = (): number => tick;
