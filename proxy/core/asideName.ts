/** Why a file was moved aside: unreadable, or not one this Airlock writes. */
export type AsideKind = 'damaged' | 'foreign';

/**
 * The name a file moved aside takes in the data directory: `capabilities-damaged-20261127T141500Z.json`,
 * `requests-foreign-20250102T030405Z-2.db`. The UTC time in it says when; `copy` counts from 1 (no
 * number) for a name another file already holds.
 */
export function asideName(base: string, kind: AsideKind, nowMs: number, copy: number, extension: string): string {
  const stamp = new Date(nowMs)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}Z$/, 'Z');
  return `${base}-${kind}-${stamp}${copy < 2 ? '' : `-${copy}`}${extension}`;
}

/** Every name `asideName` gives, a database's `-wal` or `-shm` after it too, as a regular expression's source. */
export const ASIDE_NAME_SOURCE = String.raw`[a-z][a-z-]*-(?:damaged|foreign)-\d{8}T\d{6}Z(?:-\d+)?\.[a-z]+(?:-wal|-shm)?`;
