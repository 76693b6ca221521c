import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { LedgerGap } from '../contracts/log.ts';
import type { RequestLog } from '../store/requestLog.ts';
import { DATABASE_FILE_NAME, type NewerLogError, SCHEMA_VERSION } from '../store/schema.ts';
import type { SeededLog, SeededLogOptions } from './seededLog.ts';

/** Where a run beside a newer Airlock's log logs its own requests: emptied at such a start and at its stop. */
export const RUN_ONLY_LOG_DIR_NAME = 'requests-this-run';

/**
 * A roll-back: the request log is a newer Airlock's. Refusing to start left every tool without its
 * proxy until the user updated again or gave up the log. Firefox's downgrade protection refuses a newer
 * profile outright (support.mozilla.org "Firefox has been downgraded"), and Chromium opens a newer
 * SQLite store only when its recorded compatible version allows (sql::MetaTable); an older writer
 * could break rules it does not know. So the newer log is left as it is, for the update back, and this
 * run logs into a log of its own, deleted when it stops. The spend of today and this month is in the
 * newer log, unread: every daily and monthly cap refuses (the ledger gap), as for any spend the log
 * lost; profiles and clients without one go on.
 */
export function openBesideNewerLog(options: SeededLogOptions, newer: NewerLogError): SeededLog {
  const dir = path.join(options.dataDir, RUN_ONLY_LOG_DIR_NAME);
  // An earlier such run that did not stop (a crash) left its log: it was only ever for that run.
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { mode: 0o700 });
  const newerLog = path.join(options.dataDir, DATABASE_FILE_NAME);
  const reason =
    `The request log ${newerLog} was written by a newer Airlock (schema ${newer.schemaVersion}; this one knows ${SCHEMA_VERSION}) ` +
    `and holds the spend that daily and monthly caps count, which this Airlock cannot read: it leaves that log as it is, ` +
    `and logs this run's requests apart, until it stops. Update Airlock to log and count spend again, or move ` +
    `${DATABASE_FILE_NAME} and its -wal out of ${options.dataDir} to start a fresh log here (the spend in it is then not counted).`;
  const log = runOnly(options.open(options.tellFailure, dir), dir, reason);
  options.seed(log);
  return { log, recovery: null, startNotice: null, newerLogNotice: reason };
}

/** The run's own log, with the spend of every cap's period unknown, removed once closed. */
function runOnly(log: RequestLog, dir: string, reason: string): RequestLog {
  const gap = (nowMs: number): LedgerGap => ({ lastLossMs: nowMs, reason });
  const overrides: Partial<RequestLog> = {
    ledgerGap: gap,
    status: () => ({ ...log.status(), ledgerGap: gap(Date.now()) }),
    close: async () => {
      await log.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return new Proxy(log, {
    get(target, property) {
      if (Object.hasOwn(overrides, property)) return overrides[property as keyof RequestLog];
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
