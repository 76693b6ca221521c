import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { readHeaderBytes } from './logCheck.ts';
import { APPLICATION_ID_OFFSET, parseDbHeader, scanWal } from './sqliteFile.ts';

/**
 * Why the WAL beside the log was written for another database, or null (it is the log's own, or
 * nothing tells). SQLite cannot tell: a WAL's header holds its magic, format, page size,
 * checkpoint sequence, salts and checksums (sqlite.org/fileformat2.html#walformat), none of which
 * names the database (foreignWal.test.ts shows the replay), and opening the log
 * replays any WAL whose own checksums hold, page by page, over the file (a data directory copied
 * piecemeal, a log restored from a backup beside another log's WAL). Airlock's logs each carry a
 * random application_id in page 1 (schema.ts), so a WAL holding an image of page 1 (every run that
 * grew the log wrote one) names its database. A log without an id yet (first opened by an older
 * Airlock) or a WAL without page 1 cannot be judged and is left to SQLite, as before; so is a
 * backup of this same log restored beside its later WAL (same id: quick_check judges the result).
 */
export function foreignWalReason(dbPath: string, walPath: string): string | null {
  if (!existsSync(dbPath) || !existsSync(walPath) || statSync(dbPath).size === 0) return null;
  const header = parseDbHeader(readHeaderBytes(dbPath));
  if ('problem' in header || header.applicationId === 0) return null;
  const wal = scanWal(walPath);
  const pageOneImages = wal.frames.filter((frame) => frame.replayed && frame.pageNumber === 1);
  if (pageOneImages.length === 0) return null;
  const fd = openSync(walPath, 'r');
  try {
    const idBytes = Buffer.alloc(4);
    for (const frame of pageOneImages) {
      readSync(fd, idBytes, 0, 4, frame.imageOffset + APPLICATION_ID_OFFSET);
      const walId = idBytes.readUInt32BE(0);
      if (walId !== header.applicationId)
        return `it was written for another database (its application id ${walId}, the log's ${header.applicationId})`;
    }
    return null;
  } finally {
    closeSync(fd);
  }
}
