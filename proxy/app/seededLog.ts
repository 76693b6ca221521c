import { isDamageError } from '../store/logCheck.ts';
import { recoverDamagedLog, scanLogWal, type LogRecoveryReport } from '../store/logRecovery.ts';
import type { RequestLog } from '../store/requestLog.ts';
import { newerLogSchema } from '../store/newerLogRead.ts';
import { NewerLogError } from '../store/schema.ts';
import { requestLogNoticeKind, type NoticeBoard } from './noticeBoard.ts';
import { foldedNotice, openBesideNewerLog, runOnlyLogDir } from './runOnlyLog.ts';
import { foldRunOnlyLog, type FoldedRunOnlyLog } from '../store/runOnlyFold.ts';

export interface SeededLogOptions {
  dataDir: string;
  /** Opens the log in `logDir` (the data directory, unless its log is a newer Airlock's), which tells its failures to `onError`. */
  open: (onError: (error: unknown) => void, logDir: string) => RequestLog;
  seed: (log: RequestLog) => void;
  /** Tells the user of a log failure, as a notice of its kind (requestLogNoticeKind). */
  tellFailure: (error: unknown) => void;
  notices: NoticeBoard;
}

export interface SeededLog {
  log: RequestLog;
  recovery: LogRecoveryReport | null;
  startNotice: string | null;
  /** The data directory's log is a newer Airlock's, left as it is: what this run does instead (runOnlyLog.ts). */
  newerLogNotice: string | null;
}

/**
 * Checks the request log, opens it and seeds the spend ledger from it. The check skips quick_check
 * for a file untouched since a clean close, judged by its size and time; a storage fault that keeps
 * both is then found only by the first read of the damaged page, the ledger's seed, which failed
 * the start with SQLite's "database disk image is malformed". That log is closed (having seen the
 * damage, it records no clean close), checked again in full, set aside with its rows read back,
 * and a fresh log opened and seeded.
 * `startNotice` is both logs' notices: the first may have consumed a file of the data directory
 * (moved a damaged spend record aside, written saved spend as summary rows) that the fresh one no longer finds.
 */
export async function openSeededLog(options: SeededLogOptions): Promise<SeededLog> {
  const { dataDir, open, seed, tellFailure, notices } = options;
  // Told apart read-only first: the check and the open below open the log to write, and closing that
  // checkpoints its WAL into the file, which the newer Airlock is to find as it left it.
  // Scanned once for both looks: after a crash the WAL can be large.
  const wal = scanLogWal(dataDir);
  const newerSchema = newerLogSchema(dataDir, wal);
  if (newerSchema !== null) return openBesideNewerLog(options, new NewerLogError(newerSchema));
  const recovery = recoverDamagedLog(dataDir, Date.now(), {}, wal);
  const damageNoticeIds: string[] = [];
  let log: RequestLog;
  let folded: FoldedRunOnlyLog | null;
  try {
    folded = foldRunOnlyLog(dataDir, runOnlyLogDir(dataDir));
    log = open((error) => {
      tellFailure(error);
      // One notice a kind: the one of this error's kind now is the one it raised.
      const raised = isDamageError(error) ? notices.list().find((notice) => notice.kind === requestLogNoticeKind(error)) : undefined;
      if (raised !== undefined) damageNoticeIds.push(raised.id);
    }, dataDir);
  } catch (error) {
    if (error instanceof NewerLogError) return openBesideNewerLog(options, error);
    throw error;
  }
  try {
    seed(log);
    return { log, recovery, startNotice: joined([...log.startNotices, ...foldedNotice(folded)]), newerLogNotice: null };
  } catch (error) {
    if (!isDamageError(error)) throw error;
    await log.close();
  }
  // The first check took the clean close record, so this one runs quick_check.
  const recheck = recoverDamagedLog(dataDir);
  const fresh = open(tellFailure, dataDir);
  seed(fresh);
  // The damage the first log met is mended now: its "restart Airlock" would send the user looking for
  // nothing. Only its notice goes: one the fresh log raised at open is news.
  for (const id of damageNoticeIds) notices.dismiss(id);
  // A loss both logs found on disk (the same file and time) is told once.
  const startNotice = joined([...new Set([...log.startNotices, ...fresh.startNotices]), ...foldedNotice(folded)]);
  return { log: fresh, recovery: recheck ?? recovery, startNotice, newerLogNotice: null };
}

function joined(notices: readonly string[]): string | null {
  return notices.length === 0 ? null : notices.join(' ');
}
