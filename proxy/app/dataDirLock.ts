import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { CLI_COMMAND } from '../contracts/cli.ts';

export const LOCK_FILE_NAME = 'airlock.lock';

/**
 * Two proxies on one data directory would both write its log, and the second's start would mark
 * the first's requests in flight as interrupted. The desktop app holds Electron's single-instance
 * lock, but `airlock serve` (on another port) could still start beside it.
 */
export class DataDirInUseError extends Error {
  readonly holderPid: number;

  constructor(dataDir: string, holderPid: number) {
    super(
      `Another Airlock (process ${holderPid}) is running with the data directory ${dataDir}. ` +
        `Quit it (or stop its \`${CLI_COMMAND} serve\`) first, or give this one its own directory with --data-dir.`,
    );
    this.name = 'DataDirInUseError';
    this.holderPid = holderPid;
  }
}

export interface DataDirLock {
  release(): void;
}

export interface LockOptions {
  pid?: number;
  /** Whether a process runs; tests pass their own. */
  isRunning?: (pid: number) => boolean;
}

function processIsRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function holderOf(file: string): number | null {
  try {
    const pid = Number.parseInt(readFileSync(file, 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/**
 * Takes the data directory for this process: a lock file created exclusively, holding the PID. A
 * lock whose process is gone (a crash, kill -9) or that holds no PID is taken over; one whose
 * process runs is a DataDirInUseError. Release removes the file if it is still this process's.
 */
export function lockDataDir(dataDir: string, options: LockOptions = {}): DataDirLock {
  const file = path.join(dataDir, LOCK_FILE_NAME);
  const pid = options.pid ?? process.pid;
  const isRunning = options.isRunning ?? processIsRunning;
  // Two tries: the second follows the removal of a stale lock, and a start that raced us to it wins.
  for (let attempt = 0; attempt < 2; attempt += 1) {
    let descriptor: number;
    try {
      descriptor = openSync(file, 'wx', 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = holderOf(file);
      if (holder !== null && isRunning(holder)) throw new DataDirInUseError(dataDir, holder);
      rmSync(file, { force: true });
      continue;
    }
    writeSync(descriptor, `${pid}\n`);
    closeSync(descriptor);
    return {
      release() {
        if (holderOf(file) === pid) rmSync(file, { force: true });
      },
    };
  }
  throw new Error(`Airlock could not lock its data directory ${dataDir}: another start keeps replacing ${LOCK_FILE_NAME}.`);
}
