import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { formatCredits } from '../contracts/amounts.ts';
import type { LedgerGap } from '../contracts/log.ts';
import { NewerLogReadError, newerLogSchema, openNewerLogSpend, type NewerLogSpend } from '../store/newerLogRead.ts';
import { foldNestedRunOnlyLog, type FoldedRunOnlyLog } from '../store/runOnlyFold.ts';
import { recoverDamagedLog, scanLogWal } from '../store/logRecovery.ts';
import type { RequestLog } from '../store/requestLog.ts';
import { DATABASE_FILE_NAME, NewerLogError, SCHEMA_VERSION } from '../store/schema.ts';
import type { SeededLog, SeededLogOptions } from './seededLog.ts';

/** Where an Airlock beside a newer one's log logs its own requests, until that log is its own again (foldRunOnlyLog). */
export const RUN_ONLY_LOG_DIR_NAME = 'requests-rolled-back';

export function runOnlyLogDir(dataDir: string): string {
  return path.join(dataDir, RUN_ONLY_LOG_DIR_NAME);
}

/**
 * A roll-back: the request log is a newer Airlock's. Refusing to start left every tool without its
 * proxy until the user updated again or gave up the log. Firefox's downgrade protection refuses a newer
 * profile outright (support.mozilla.org, "Understanding in depth the profile per installation feature"), and Chromium opens a newer
 * SQLite store only when its recorded compatible version allows (sql::MetaTable); an older writer
 * could break rules it does not know. So the newer log is left as it is, for the update back, and
 * this Airlock logs into a log of its own, which the update back adds to it (foldRunOnlyLog), so its
 * spend is counted there. The spend of today and this month is in the newer log: read-only, by the
 * query the caps are seeded with (newerLogRead.ts), it counts with this log's, so capped tools go on
 * (people roll back because an update misbehaves; stopping their agents as well made it worse). When
 * it cannot be read, every daily and monthly cap refuses (the ledger gap), as for any spend the log
 * lost; profiles and clients without one go on.
 */
export function openBesideNewerLog(options: SeededLogOptions, newer: NewerLogError, unreadable: string | null = null): SeededLog {
  const dir = runOnlyLogDir(options.dataDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const newerLog = path.join(options.dataDir, DATABASE_FILE_NAME);
  const written = `The request log ${newerLog} was written by a newer Airlock (schema ${newer.schemaVersion}; this one knows ${SCHEMA_VERSION})`;
  const apart = `logs its requests apart, in ${dir}, which the update back adds to it`;
  // A second roll-back in a row (3 to 2 to 1): the first one's log apart is newer than this Airlock too,
  // and opening it failed the start. Told from its bytes first (as the data directory's: it is not
  // written), this run logs apart inside its folder, and the caps refuse: neither log's spend is read.
  const apartSchema = newerLogSchema(dir, scanLogWal(dir));
  if (apartSchema !== null) {
    return openBesideNewerLog(
      { ...options, dataDir: dir },
      new NewerLogError(apartSchema),
      `it holds what an earlier roll-back logged apart from ${newerLog} (schema ${newer.schemaVersion}), whose spend this Airlock does not read either`,
    );
  }
  // Damaged by a crash or a disk fault, it is mended as the data directory's log is: opened as it was, it failed the start.
  const recovery = recoverDamagedLog(dir);
  // Back from such a second roll-back: what it logged apart inside this folder joins this log first.
  const folded = foldNestedRunOnlyLog(dir);
  const log = options.open(options.tellFailure, dir);
  const startNotice = foldedNotice(folded).join(' ') || null;
  let unread: string;
  try {
    if (unreadable !== null) throw new NewerLogReadError(unreadable);
    const spend = openNewerLogSpend(options.dataDir, dir, Date.now());
    const counting = withNewerSpend(log, spend);
    try {
      options.seed(counting);
    } catch (error) {
      spend.close();
      throw error;
    }
    const notice =
      `${written}. This Airlock leaves that log as it is and ${apart}. Daily and monthly caps count the spend of both: ` +
      `that log is read for it, never written. Update Airlock to see that log's requests again.`;
    return { log: counting, recovery, startNotice, newerLogNotice: notice };
  } catch (error) {
    if (!(error instanceof NewerLogReadError)) throw error;
    unread = error.message;
  }
  const reason =
    `${written} and holds the spend that daily and monthly caps count, which this Airlock could not read (${unread}): it leaves that log as it is, ` +
    `and ${apart}. Update Airlock to count spend again, or move ` +
    `${DATABASE_FILE_NAME} and its -wal out of ${options.dataDir} to start a fresh log here (the spend in it is then not counted).`;
  const gapped = withLedgerGap(log, reason);
  options.seed(gapped);
  return { log: gapped, recovery, startNotice, newerLogNotice: reason };
}

/** The log, whose spend for the caps (and their progress) is its own and the newer log's; that log closes with it. */
function withNewerSpend(log: RequestLog, newer: NewerLogSpend): RequestLog {
  return overridden(log, {
    spendSince: (query) => newer.spendSince(query) + log.spendSince(query),
    close: async () => {
      // First: a reader left on the files keeps the log's own close from taking its WAL back.
      newer.close();
      await log.close();
    },
  });
}

/** The log with the spend of every cap's period unknown. */
function withLedgerGap(log: RequestLog, reason: string): RequestLog {
  const gap = (nowMs: number): LedgerGap => ({ lastLossMs: nowMs, reason });
  return overridden(log, { ledgerGap: gap, status: () => ({ ...log.status(), ledgerGap: gap(Date.now()) }) });
}

function overridden(log: RequestLog, overrides: Partial<RequestLog>): RequestLog {
  return new Proxy(log, {
    get(target, property) {
      if (Object.hasOwn(overrides, property)) return overrides[property as keyof RequestLog];
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

export function foldedNotice(folded: FoldedRunOnlyLog | null): string[] {
  if (folded === null) return [];
  const recovered = folded.recoveryMessage === null ? [] : [`In ${RUN_ONLY_LOG_DIR_NAME}: ${folded.recoveryMessage}`];
  if (folded.requests === 0) return recovered;
  return [
    ...recovered,
    `${folded.requests} request(s) an older Airlock logged apart while this log was too new for it are now in the log ` +
      `(their spend, ${formatCredits(folded.costCredits)} credits, counts toward the caps; their bodies were not kept).`,
  ];
}
