import { chmodSync, copyFileSync, lstatSync, readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import path from 'node:path';
import { CONFIG_FILE_NAME, type ConfigFile } from '../../contracts/config.ts';
import { parseConfigText } from './configParse.ts';
import type { NewerFields } from './newerFields.ts';
import type { NamedCommand } from '../../contracts/cli.ts';
import { withoutByteOrderMark } from '../../core/byteOrderMark.ts';

/** Identifies one version of the file on disk cheaply, without reading it. */
export interface FileStamp {
  mtimeMs: number;
  size: number;
  ino: number;
}

export type ConfigFileState =
  | { kind: 'missing' }
  | { kind: 'ok'; config: ConfigFile; stamp: FileStamp; text: string; newer: NewerFields | null }
  | { kind: 'broken'; message: string; backupPath: string; stamp: FileStamp };

export const BROKEN_BACKUP_PREFIX = `${CONFIG_FILE_NAME}.broken-`;
const PRIVATE_FILE_MODE = 0o600;

export function statStamp(filePath: string): FileStamp | null {
  try {
    const stats = statSync(filePath);
    return { mtimeMs: stats.mtimeMs, size: stats.size, ino: stats.ino };
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
}

export function sameStamp(a: FileStamp | null, b: FileStamp | null): boolean {
  return a !== null && b !== null && a.mtimeMs === b.mtimeMs && a.size === b.size && a.ino === b.ino;
}

/**
 * Reads and validates the file. A broken file is copied aside first (once per distinct content),
 * so whatever the user does next, what they wrote by hand is never lost. `command` names a command
 * the problem suggests, as the data directory's Airlock names it.
 */
export function readConfigFileState(filePath: string, command: NamedCommand): ConfigFileState {
  const stamp = statStamp(filePath);
  if (!stamp) return { kind: 'missing' };
  const text = readConfigText(filePath);
  if (text === null) return { kind: 'missing' };
  const parsed = parseConfigText(text, command);
  if (parsed.ok) return { kind: 'ok', config: parsed.config, stamp, text, newer: parsed.newer };
  return { kind: 'broken', message: parsed.message, backupPath: backUpBrokenFile(filePath, text), stamp };
}

function backUpBrokenFile(filePath: string, text: string): string {
  const directory = path.dirname(filePath);
  const existing = readdirSync(directory)
    .filter((name) => name.startsWith(BROKEN_BACKUP_PREFIX))
    .map((name) => path.join(directory, name))
    .find((candidate) => readFileSync(candidate, 'utf8') === text);
  if (existing) return existing;
  const timestamp = new Date().toISOString().replace(/[:.]/g, '-');
  const backupPath = path.join(directory, `${BROKEN_BACKUP_PREFIX}${timestamp}`);
  // The copy takes its source's mode, and start narrows only airlock.json itself: a hand-made file
  // readable by all would leave a copy so for good.
  copyFileSync(filePath, backupPath);
  chmodSync(backupPath, PRIVATE_FILE_MODE);
  return backupPath;
}

/**
 * The file's text now, or null when there is none: what a writer compares with what it read. An
 * empty file holds no settings either, and is what an editor saving in place leaves for a moment
 * (VS Code truncates, then writes): read as none, it is given the time a missing file is.
 */
export function readConfigText(filePath: string): string | null {
  let text: string;
  try {
    text = readFileSync(filePath, 'utf8');
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
  return withoutByteOrderMark(text).trim() === '' ? null : text;
}

/** Where a symlink that points at nothing points, or null when the path is no such link. */
export function danglingLinkTarget(filePath: string): string | null {
  try {
    if (!lstatSync(filePath).isSymbolicLink() || statStamp(filePath) !== null) return null;
    return path.resolve(path.dirname(filePath), readlinkSync(filePath));
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
}

function isNotFound(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === 'ENOENT';
}
