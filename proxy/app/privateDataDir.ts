import { chmodSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { CAPABILITIES_FILE_NAME } from './capabilities/capabilityService.ts';
import { REASONING_EFFORT_REFUSALS_FILE_NAME } from './capabilities/reasoningEffortFile.ts';
import { CONFIG_FILE_NAME } from '../contracts/config.ts';
import { DATABASE_FILE_NAME } from '../store/schema.ts';
import { LOCK_FILE_NAME } from './dataDirLock.ts';
import { SESSIONS_FILE_NAME } from './control/sessionFile.ts';
import { shellWord } from '../contracts/cli.ts';

/** Permission bits of the group and of others: none may be set on what Airlock keeps. */
const SHARED_BITS = 0o077;
const PRIVATE_DIR_MODE = 0o700;

/** The files Airlock writes in its data directory (the log's WAL and shared memory included). */
const OWN_FILES = [
  CONFIG_FILE_NAME,
  CAPABILITIES_FILE_NAME,
  REASONING_EFFORT_REFUSALS_FILE_NAME,
  LOCK_FILE_NAME,
  SESSIONS_FILE_NAME,
  DATABASE_FILE_NAME,
  `${DATABASE_FILE_NAME}-wal`,
  `${DATABASE_FILE_NAME}-shm`,
];

/**
 * Makes the data directory the user's alone (made 0700) and Airlock's files in it, also when they
 * already existed with wider permissions (made by hand, by an older Airlock, under a loose umask):
 * the request log holds every prompt and answer. Returns what could not be restricted, each with
 * its fix, for the start notices; Windows keeps the profile directory's own access list.
 */
export function makeDataDirPrivate(dataDir: string, platform: NodeJS.Platform = process.platform): string[] {
  mkdirSync(dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  if (platform === 'win32') return [];
  const problems: string[] = [];
  for (const target of [dataDir, ...OWN_FILES.map((name) => path.join(dataDir, name))]) {
    const problem = restrict(target);
    if (problem !== null) problems.push(problem);
  }
  return problems;
}

/**
 * Takes the group's and others' bits away and leaves the owner's as they are: a file or directory
 * the user made read-only (0444, 0555: settings an admin fixed) stays so. Setting 0600 or 0700
 * made it writable again without a word.
 */
function restrict(target: string): string | null {
  let currentMode: number;
  try {
    currentMode = statSync(target).mode & 0o777;
  } catch {
    return null;
  }
  if ((currentMode & SHARED_BITS) === 0) return null;
  const mode = currentMode & ~SHARED_BITS;
  try {
    chmodSync(target, mode);
    return null;
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    return `${target} can be read by other users of this machine (mode ${currentMode.toString(8)}) and Airlock could not change that (${reason}): run \`chmod go-rwx ${shellWord(target)}\`.`;
  }
}
