import { isDamageError } from '../store/logCheck.ts';
import { recoverDamagedLog, type LogRecoveryReport } from '../store/logRecovery.ts';
import type { RequestLog } from '../store/requestLog.ts';

/**
 * Checks the request log, opens it and seeds the spend ledger from it. The check skips quick_check
 * for a file untouched since a clean close, judged by its size and time; a storage fault that keeps
 * both is then found only by the first read of the damaged page, the ledger's seed, which failed
 * the start with SQLite's "database disk image is malformed". That log is closed (having seen the
 * damage, it records no clean close), checked again in full, set aside with its rows read back,
 * and a fresh log opened and seeded. `damageFound` says the first log told of the damage it met.
 * `startNotice` is both logs' notices: the first may have consumed a file of the data directory
 * (moved a damaged spend record aside, written saved spend as summary rows) that the fresh one no longer finds.
 */
export async function openSeededLog(
  dataDir: string,
  open: () => RequestLog,
  seed: (log: RequestLog) => void,
): Promise<{ log: RequestLog; recovery: LogRecoveryReport | null; damageFound: boolean; startNotice: string | null }> {
  const recovery = recoverDamagedLog(dataDir);
  const log = open();
  try {
    seed(log);
    return { log, recovery, damageFound: false, startNotice: joined(log.startNotices) };
  } catch (error) {
    if (!isDamageError(error)) throw error;
    await log.close();
  }
  // The first check took the clean close record, so this one runs quick_check.
  const recheck = recoverDamagedLog(dataDir);
  const fresh = open();
  seed(fresh);
  // A loss both logs found on disk (the same file and time) is told once.
  const startNotice = joined([...new Set([...log.startNotices, ...fresh.startNotices])]);
  return { log: fresh, recovery: recheck ?? recovery, damageFound: true, startNotice };
}

function joined(notices: readonly string[]): string | null {
  return notices.length === 0 ? null : notices.join(' ');
}
