import { statSync } from 'node:fs';
import { readHeaderBytes } from './logCheck.ts';
import { APPLICATION_ID_OFFSET, installedPage1, parseDbHeader, readFileBytesAt, type WalScan } from './sqliteFile.ts';

/**
 * Why the WAL beside the log was written for another database, or null (it is the log's own, or
 * nothing tells). SQLite cannot tell: a WAL's header holds its magic, format, page size,
 * checkpoint sequence, salts and checksums (sqlite.org/fileformat2.html#walformat), none of which
 * names the database (foreignWal.test.ts shows the replay), and opening the log
 * replays any WAL whose own checksums hold, page by page, over the file (a data directory copied
 * piecemeal, a log restored from a backup beside another log's WAL). Airlock's logs each carry a
 * random application_id in page 1 (schema.ts), so the image of page 1 SQLite would install from
 * the WAL, its newest committed one (every run writes one), names the database it was written
 * for. Only that one: the WAL's first generation after the id was set also holds older images
 * of page 1 without it (the tables, the migrations, written just before), and a checkpoint may
 * have put the id in the file since. A log without an id yet (first opened by an older Airlock)
 * or a WAL without page 1 cannot be judged and is left to SQLite, as before; so is a backup of
 * this same log restored beside its later WAL (same id: quick_check judges the result).
 * `wal` is the scan of `walPath`, which the log check reuses.
 */
export function foreignWalReason(dbPath: string, walPath: string, wal: WalScan): string | null {
  const dbStats = statSync(dbPath, { throwIfNoEntry: false });
  // A directory where the log belongs is for the log check to name (logCheck.ts), with its fix.
  if (!dbStats?.isFile() || dbStats.size === 0) return null;
  const header = parseDbHeader(readHeaderBytes(dbPath));
  if ('problem' in header || header.applicationId === 0) return null;
  const installed = installedPage1(wal);
  if (installed === undefined) return null;
  const walId = readFileBytesAt(walPath, installed.imageOffset + APPLICATION_ID_OFFSET, 4).readUInt32BE(0);
  return walId === header.applicationId
    ? null
    : `it was written for another database (its application id ${walId}, the log's ${header.applicationId})`;
}
