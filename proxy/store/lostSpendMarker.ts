import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Left when a damaged request log was set aside and nothing could be read back from it: the spend
 * it held is unknown, so capped budgets whose period holds it are refused until that period ends
 * or the user deletes this file to accept the loss.
 */
export const LOST_SPEND_MARKER_FILE_NAME = 'requests-spend-unknown.json';

export interface LostSpendMarker {
  path: string;
  /** The latest time the lost spend can be from. */
  lastLossMs: number;
  /** Where the log whose spend is unknown now is. */
  movedTo: string;
}

export function lostSpendMarkerPath(dataDir: string): string {
  return join(dataDir, LOST_SPEND_MARKER_FILE_NAME);
}

export function writeLostSpendMarker(dataDir: string, lastLossMs: number, movedTo: string): void {
  writeFileSync(lostSpendMarkerPath(dataDir), JSON.stringify({ lastLossMs, movedTo }), { mode: 0o600 });
}

/** Null without a marker; one that cannot be parsed still stands for a loss, dated by its change. */
export function readLostSpendMarker(dataDir: string): LostSpendMarker | null {
  const path = lostSpendMarkerPath(dataDir);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    return { path, lastLossMs: Date.now(), movedTo: 'an unknown place' };
  }
  try {
    const parsed = JSON.parse(text) as { lastLossMs?: unknown; movedTo?: unknown };
    if (typeof parsed.lastLossMs === 'number' && typeof parsed.movedTo === 'string') {
      return { path, lastLossMs: parsed.lastLossMs, movedTo: parsed.movedTo };
    }
  } catch {
    // Unparsable: dated by its last change below.
  }
  return { path, lastLossMs: statSync(path).mtimeMs, movedTo: 'an unknown place' };
}
