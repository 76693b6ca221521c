import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, lstatSync, openSync, readlinkSync, realpathSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';

/**
 * Replaces a file so that a crash leaves either the old or the new content, never a torn mix:
 * temp file in the same directory, fsync it, rename over the target, fsync the directory so the
 * rename itself survives a power loss. Mode 0600: the file is the user's alone. Through a symlink,
 * the file it points at is replaced and the link stays.
 */
export function writeFileAtomic(linkOrFilePath: string, content: string): void {
  // A file kept as a symlink into a dotfiles repository: a rename onto the link would replace it
  // with a plain file and leave the tracked file as it was, so the link's target is replaced.
  const filePath = linkTarget(linkOrFilePath);
  const directory = path.dirname(filePath);
  const tempPath = path.join(directory, `.${path.basename(filePath)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(tempPath, 'wx', 0o600);
  try {
    writeSync(fd, content);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(tempPath, { force: true });
    throw error;
  }
  closeSync(fd);
  try {
    renameSync(tempPath, filePath);
  } catch (error) {
    rmSync(tempPath, { force: true });
    throw error;
  }
  fsyncDirectory(directory);
}

function fsyncDirectory(directory: string): void {
  // Windows cannot open a directory for fsync; NTFS journals the rename itself.
  if (process.platform === 'win32') return;
  const fd = openSync(directory, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The file a path names once its symlinks are followed; itself when it is none or does not exist yet. */
function linkTarget(filePath: string): string {
  try {
    return realpathSync(filePath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  // A dangling link (the tracked file not created yet): the new file goes where it points.
  try {
    if (lstatSync(filePath).isSymbolicLink()) return linkTarget(path.resolve(path.dirname(filePath), readlinkSync(filePath)));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  return filePath;
}
