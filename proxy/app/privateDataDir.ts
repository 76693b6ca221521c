import { chmodSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { CAPABILITIES_FILE_NAME } from './capabilities/capabilityService.ts';
import { REASONING_EFFORT_REFUSALS_FILE_NAME } from './capabilities/reasoningEffortFile.ts';
import { CONFIG_FILE_NAME } from '../contracts/config.ts';
import { DATABASE_FILE_NAME } from '../store/schema.ts';
import { LOCK_FILE_NAME } from './dataDirLock.ts';
import { SESSIONS_FILE_NAME } from './control/sessionFile.ts';

/** Permission bits of the group and of others: none may be set on what Airlock keeps. */
const SHARED_BITS = 0o077;
const PRIVATE_DIR_MODE = 0o700;
const PRIVATE_FILE_MODE = 0o600;

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
 * Makes the data directory the user's alone (0700) and Airlock's files in it 0600, also when they
 * already existed with wider permissions (made by hand, by an older Airlock, under a loose umask):
 * the request log holds every prompt and answer. Returns what could not be restricted, each with
 * its fix, for the start notices; Windows keeps the profile directory's own access list.
 */
export function makeDataDirPrivate(dataDir: string, platform: NodeJS.Platform = process.platform): string[] {
  mkdirSync(dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  if (platform === 'win32') return [];
  const problems: string[] = [];
  for (const [target, mode] of [
    [dataDir, PRIVATE_DIR_MODE],
    ...OWN_FILES.map((name) => [path.join(dataDir, name), PRIVATE_FILE_MODE] as const),
  ] as const) {
    const problem = restrict(target, mode);
    if (problem !== null) problems.push(problem);
  }
  return problems;
}

function restrict(target: string, mode: number): string | null {
  let currentMode: number;
  try {
    currentMode = statSync(target).mode & 0o777;
  } catch {
    return null;
  }
  if ((currentMode & SHARED_BITS) === 0) return null;
  try {
    chmodSync(target, mode);
    return null;
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    return `${target} can be read by other users of this machine (mode ${currentMode.toString(8)}) and Airlock could not change that (${reason}): run \`chmod ${mode.toString(8)} ${target}\`.`;
  }
}
