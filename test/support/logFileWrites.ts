import { statSync, watch } from 'node:fs';
import path from 'node:path';
import { DATABASE_FILE_NAME } from '../../proxy/store/schema.ts';

const LOG_FILES = [DATABASE_FILE_NAME, `${DATABASE_FILE_NAME}-wal`];

/** The log's files as last written: a reader (the check itself) changes neither's size or modification time. */
function logFilesStamp(dataDir: string): string {
  return LOG_FILES.map((name) => {
    const stats = statSync(path.join(dataDir, name), { throwIfNoEntry: false });
    return stats === undefined ? '-' : `${stats.size}:${stats.mtimeMs}`;
  }).join(' ');
}

/**
 * Resolves once `holds()` (a read of the log another process writes) is true, checking again at
 * each write to the log's files: no timed polling. Reading the log wakes the watcher too (SQLite
 * touches its -shm and may touch the WAL's access time), so a wake-up without a new write is
 * skipped, or the check would read on and on and starve the processes it waits for. If the rows
 * never come, the test's own timeout ends the wait; `stop` closes the watcher early.
 */
export function untilLogShows(dataDir: string, holds: () => boolean): { shown: Promise<void>; stop(): void } {
  let lastStamp = '';
  const writtenSinceLastCheck = (): boolean => {
    const stamp = logFilesStamp(dataDir);
    if (stamp === lastStamp) return false;
    lastStamp = stamp;
    return true;
  };
  let watcher: ReturnType<typeof watch> | null = null;
  const shown = new Promise<void>((resolve, reject) => {
    const check = (): void => {
      try {
        if (!writtenSinceLastCheck() || !holds()) return;
        watcher?.close();
        resolve();
      } catch (error) {
        watcher?.close();
        reject(error);
      }
    };
    // Watching starts before the first check, so no write falls between the two.
    watcher = watch(dataDir, (_event, fileName) => {
      if (fileName !== null && LOG_FILES.includes(fileName)) check();
    });
    check();
  });
  return { shown, stop: () => watcher?.close() };
}
