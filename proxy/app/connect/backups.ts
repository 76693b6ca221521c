import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { ConnectBackupInfo, ConnectToolId } from '../../contracts/connect.ts';

/**
 * What a setup replaced, so `undo` can put it back: one folder per setup under
 * `<data dir>/connect-backups/<tool>/<UTC time>/`, with each file's old text (or a note that it did
 * not exist), what Airlock wrote and its hash, so an undo never overwrites later edits: it takes
 * out only Airlock's lines from a file changed since. Kept in Airlock's private data directory
 * (0700), not beside the tool's files.
 */
const BACKUP_DIR = 'connect-backups';
const MANIFEST = 'manifest.json';
const PRIVATE_DIR_MODE = 0o700;

const manifestSchema = z.object({
  createdAtMs: z.number(),
  files: z.array(
    z.object({
      path: z.string(),
      /** The copy's name in the backup folder; null when the file did not exist before. */
      copy: z.string().nullable(),
      /** The file's permission bits before, put back by undo (absent in backups made before it was kept). */
      mode: z.number().int().optional(),
      /** The copy of what Airlock wrote (absent in backups made before it was kept). */
      writtenCopy: z.string().optional(),
      writtenSha256: z.string(),
    }),
  ),
});
export type BackupManifest = z.infer<typeof manifestSchema>;

export interface BackupFile {
  path: string;
  before: string | null;
  /** Permission bits of the file before; null when it did not exist. */
  mode: number | null;
  written: string;
}

export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

function toolDir(dataDir: string, tool: ConnectToolId): string {
  return path.join(dataDir, BACKUP_DIR, tool);
}

/** `20261126T004422123Z`: sortable, and a valid folder name everywhere. */
function stampOf(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:.]/g, '');
}

export function listBackups(dataDir: string, tool: ConnectToolId): ConnectBackupInfo[] {
  let names: string[];
  try {
    names = readdirSync(toolDir(dataDir, tool));
  } catch {
    return [];
  }
  const backups: ConnectBackupInfo[] = [];
  for (const name of names) {
    const manifest = readManifest(dataDir, tool, name);
    if (manifest) backups.push({ id: name, createdAtMs: manifest.createdAtMs });
  }
  return backups.sort((a, b) => b.id.localeCompare(a.id));
}

export function readManifest(dataDir: string, tool: ConnectToolId, id: string): BackupManifest | null {
  try {
    return manifestSchema.parse(JSON.parse(readFileSync(path.join(toolDir(dataDir, tool), id, MANIFEST), 'utf8')));
  } catch {
    return null;
  }
}

export function readBackupCopy(dataDir: string, tool: ConnectToolId, id: string, copy: string): string {
  return readFileSync(path.join(toolDir(dataDir, tool), id, copy), 'utf8');
}

export function backupFolder(dataDir: string, tool: ConnectToolId, id: string): string {
  return path.join(toolDir(dataDir, tool), id);
}

/** Saves the old texts before a write; returns the backup's id. */
export function saveBackup(dataDir: string, tool: ConnectToolId, nowMs: number, files: readonly BackupFile[]): string {
  mkdirSync(toolDir(dataDir, tool), { recursive: true, mode: PRIVATE_DIR_MODE });
  // mkdir leaves the mode of a folder that exists alone: one copied in or made by hand may be open to others.
  for (const folder of [path.join(dataDir, BACKUP_DIR), toolDir(dataDir, tool)]) chmodSync(folder, PRIVATE_DIR_MODE);
  let id = stampOf(nowMs);
  for (let suffix = 2; readManifest(dataDir, tool, id) !== null || existsDir(path.join(toolDir(dataDir, tool), id)); suffix += 1) {
    id = `${stampOf(nowMs)}-${suffix}`;
  }
  const folder = path.join(toolDir(dataDir, tool), id);
  mkdirSync(folder, { mode: PRIVATE_DIR_MODE });
  const manifest: BackupManifest = { createdAtMs: nowMs, files: files.map((file, index) => newEntry(folder, index, file)) };
  writeFileSync(path.join(folder, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
  return id;
}

/**
 * Adds a later write of the same setup to a backup, when the files were still as Airlock wrote
 * them: a file it holds gets the new text as what Airlock wrote, keeping the old text from before
 * the first setup; a file it does not hold is added with its text now. Undo then goes back to the
 * user's own files in one step, however often the tool was set up again (another model, say).
 */
export function extendBackup(dataDir: string, tool: ConnectToolId, id: string, files: readonly BackupFile[]): string {
  const folder = backupFolder(dataDir, tool, id);
  const manifest = readManifest(dataDir, tool, id)!;
  for (const file of files) {
    const entry = manifest.files.find((candidate) => candidate.path === file.path);
    if (!entry) {
      manifest.files.push(newEntry(folder, manifest.files.length, file));
      continue;
    }
    const index = manifest.files.indexOf(entry);
    entry.writtenCopy = entry.writtenCopy ?? `${index}-${path.basename(file.path)}.written`;
    writeFileSync(path.join(folder, entry.writtenCopy), file.written, { mode: 0o600 });
    entry.writtenSha256 = sha256(file.written);
  }
  writeFileSync(path.join(folder, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
  return id;
}

function newEntry(folder: string, index: number, file: BackupFile): BackupManifest['files'][number] {
  const copy = file.before === null ? null : `${index}-${path.basename(file.path)}`;
  if (copy !== null) writeFileSync(path.join(folder, copy), file.before!, { mode: 0o600 });
  const writtenCopy = `${index}-${path.basename(file.path)}.written`;
  writeFileSync(path.join(folder, writtenCopy), file.written, { mode: 0o600 });
  return { path: file.path, copy, ...(file.mode === null ? {} : { mode: file.mode }), writtenCopy, writtenSha256: sha256(file.written) };
}

export function removeBackup(dataDir: string, tool: ConnectToolId, id: string): void {
  rmSync(path.join(toolDir(dataDir, tool), id), { recursive: true, force: true });
}

/** Deletes every backup of a tool (undo then has nothing to restore); returns how many there were. */
export function removeAllBackups(dataDir: string, tool: ConnectToolId): number {
  const count = listBackups(dataDir, tool).length;
  rmSync(toolDir(dataDir, tool), { recursive: true, force: true });
  return count;
}

function existsDir(folder: string): boolean {
  try {
    readdirSync(folder);
    return true;
  } catch {
    return false;
  }
}
