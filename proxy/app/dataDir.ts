import { lstatSync, readlinkSync, statSync } from 'node:fs';
import path from 'node:path';
import { shellWord } from '../contracts/cli.ts';

/** Electron derives `app.getPath('userData')` from the product name; the CLI must find the same directory. */
export const PRODUCT_NAME = 'Airlock';

/**
 * Where the profile file lives: `--data-dir`, then `AIRLOCK_DATA_DIR`, else the directory Electron's
 * `app.getPath('userData')` gives for "Airlock" on this platform, so the app and `airlock serve`
 * share one file. Pure: the caller passes the environment, platform and home directory.
 */
export function resolveDataDir(env: NodeJS.ProcessEnv, platform: NodeJS.Platform, homedir: string, flag?: string): string {
  return nonEmpty(flag) ?? nonEmpty(env.AIRLOCK_DATA_DIR) ?? defaultDataDir(env, platform, homedir);
}

/** The data directory used when none is named: the desktop app's (Electron's `userData` for "Airlock"). */
export function defaultDataDir(env: NodeJS.ProcessEnv, platform: NodeJS.Platform, homedir: string): string {
  switch (platform) {
    case 'win32':
      return path.win32.join(nonEmpty(env.APPDATA) ?? path.win32.join(homedir, 'AppData', 'Roaming'), PRODUCT_NAME);
    case 'darwin':
      return path.posix.join(homedir, 'Library', 'Application Support', PRODUCT_NAME);
    default:
      return path.posix.join(nonEmpty(env.XDG_CONFIG_HOME) ?? path.posix.join(homedir, '.config'), PRODUCT_NAME);
  }
}

/**
 * The `--data-dir` a suggested command must repeat: null for the default directory. One chosen by
 * AIRLOCK_DATA_DIR counts too (the CLI's, or the desktop app's), as the command may be pasted in a
 * shell that does not have it.
 */
export function dataDirArgument(
  dataDir: string,
  host: { env: NodeJS.ProcessEnv; platform: NodeJS.Platform; homedir: string; cwd: string },
): string | null {
  return dataDir === path.resolve(host.cwd, defaultDataDir(host.env, host.platform, host.homedir)) ? null : dataDir;
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

/** The way out every data directory problem offers besides its own fix. */
const ANOTHER_DATA_DIR = 'give Airlock another data directory with --data-dir or AIRLOCK_DATA_DIR';

/** The data directory cannot be written (its permissions, a read-only or full disk): said with the directory and the way out. */
export class DataDirUnwritableError extends Error {
  constructor(dataDir: string, reason: string) {
    super(
      `Airlock cannot write to its data directory ${dataDir} (${reason}). ` +
        'Make it writable for your user, or give Airlock another one with --data-dir or AIRLOCK_DATA_DIR.',
    );
    this.name = 'DataDirUnwritableError';
  }
}

/** The file system's codes that mean nothing can be written there, in words. */
const UNWRITABLE_REASONS: Readonly<Record<string, string>> = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'read-only file system',
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
};

/**
 * A file stands where the data directory, or a folder above it, belongs (a typo in --data-dir, a
 * backup restored as a file): said with the file, which is the user's and is left as it is.
 */
export class DataDirIsAFileError extends Error {
  constructor(dataDir: string, file: string) {
    super(
      `Airlock cannot use ${dataDir} as its data directory: ${file} is a file, not a folder. ` +
        `Move or rename that file, or ${ANOTHER_DATA_DIR}.`,
    );
    this.name = 'DataDirIsAFileError';
  }
}

/**
 * The data directory, or a folder above it, is a link to nothing (its disk not mounted, its target
 * moved): mkdir refuses it with a bare ENOENT naming the link's own path. Said with the link, where it
 * points and the ways out; the link is the user's and is left as it is.
 */
export class DataDirLinkToNothingError extends Error {
  constructor(dataDir: string, link: string, target: string) {
    const what = path.resolve(link) === path.resolve(dataDir) ? `${dataDir} is a link` : `${link}, a folder above it, is a link`;
    super(
      `Airlock cannot use ${dataDir} as its data directory: ${what} to ${target}, which does not exist. ` +
        `Connect the disk it is on (or make that folder), or remove the link, or ${ANOTHER_DATA_DIR}.`,
    );
    this.name = 'DataDirLinkToNothingError';
  }
}

/**
 * The data directory, or a file in it, belongs to another user: a run with sudo leaves its files
 * root's, and the user's own runs are then refused them, in a directory that is theirs and
 * writable. "Make it writable" sent them to a directory that already was; the file and its owner
 * are named instead, with the command that gives them back.
 */
export class DataDirOwnedByAnotherError extends Error {
  constructor(dataDir: string, target: string, ownerUid: number) {
    const what = path.resolve(target) === path.resolve(dataDir) ? `its data directory ${dataDir}` : `${target} in its data directory`;
    super(
      `Airlock cannot open ${what}: it belongs to another user (uid ${ownerUid}), as files made by a run with sudo do. ` +
        `Give the directory back to your user with \`sudo chown -R "$USER" ${shellWord(dataDir)}\`, or ${ANOTHER_DATA_DIR}.`,
    );
    this.name = 'DataDirOwnedByAnotherError';
  }
}

/**
 * A file system error that says the data directory cannot be written, as a DataDirUnwritableError
 * (or, where the refused file or directory is another user's, a DataDirOwnedByAnotherError), or
 * that a file is in its way (mkdir's EEXIST, a path through a file's ENOTDIR), as a
 * DataDirIsAFileError; any other error as it is.
 */
export function asDataDirError(dataDir: string, error: unknown): unknown {
  const { code, path: target } = (error as NodeJS.ErrnoException | null) ?? {};
  if (code === 'EEXIST' || code === 'ENOTDIR') {
    const file = fileInPlaceOf(dataDir);
    return file === null ? error : new DataDirIsAFileError(dataDir, file);
  }
  if (code === 'ENOENT') {
    const link = linkToNothingInPlaceOf(dataDir);
    return link === null ? error : new DataDirLinkToNothingError(dataDir, link.path, link.target);
  }
  const reason = code === undefined ? undefined : UNWRITABLE_REASONS[code];
  if (reason === undefined) return error;
  const owned = code === 'EACCES' || code === 'EPERM' ? anotherUsers(target ?? dataDir, dataDir) : null;
  return owned === null ? new DataDirUnwritableError(dataDir, reason) : new DataDirOwnedByAnotherError(dataDir, owned.path, owned.uid);
}

/**
 * The refused file, else (it cannot even be looked at: the directory is closed to this user) the
 * data directory, with its owner, when that owner is not this process's user (POSIX only); else null.
 */
function anotherUsers(target: string, dataDir: string): { path: string; uid: number } | null {
  const ownUid = process.getuid?.();
  if (ownUid === undefined) return null;
  for (const candidate of [target, dataDir]) {
    try {
      const { uid } = statSync(candidate);
      return uid === ownUid ? null : { path: candidate, uid };
    } catch {
      // Not to be looked at: the directory holding it tells.
    }
  }
  return null;
}

/** The nearest of the data directory and the folders above it that exists, when it is no folder; else null. */
function fileInPlaceOf(dataDir: string): string | null {
  for (let at = path.resolve(dataDir); ; at = path.dirname(at)) {
    try {
      return statSync(at).isDirectory() ? null : at;
    } catch {
      // Not there (or a path through a file, ENOTDIR): the folder above tells.
    }
    if (path.dirname(at) === at) return null;
  }
}

/** The nearest of the data directory and the folders above it that is there as a link whose target is not; else null. */
function linkToNothingInPlaceOf(dataDir: string): { path: string; target: string } | null {
  for (let at = path.resolve(dataDir); path.dirname(at) !== at; at = path.dirname(at)) {
    try {
      if (!lstatSync(at).isSymbolicLink()) return null;
    } catch {
      // Not there at all: the folder above tells.
      continue;
    }
    try {
      statSync(at);
      return null;
    } catch {
      return { path: at, target: readlinkSync(at) };
    }
  }
  return null;
}
