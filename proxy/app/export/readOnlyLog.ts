import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { RequestLogQueries } from '../../store/read/queries.ts';
import { NO_SECRETS, type SecretsNow } from '../../store/read/secretsNow.ts';
import { SessionQueries } from '../../store/read/sessionQueries.ts';
import { DATABASE_FILE_NAME, readPragma, SCHEMA_VERSION } from '../../store/schema.ts';
import type { NamedCommand } from '../../contracts/cli.ts';

export interface ReadOnlyLog {
  queries: RequestLogQueries;
  sessions: SessionQueries;
  close(): void;
}

/**
 * The request log opened for reading only, for `airlock export`, `airlock request` and `airlock sessions`, masked with
 * the secrets `secretsNow` gives as it is read: it works beside a running
 * Airlock (WAL lets a reader see every committed row while the log thread writes) and never
 * changes the file, so it needs no lock on the data directory. `command` names the data directory's
 * `serve` as the command that asks names it (its --data-dir).
 */
export function openLogForReading(dataDir: string, command: NamedCommand, secretsNow: SecretsNow = NO_SECRETS): ReadOnlyLog {
  const file = join(dataDir, DATABASE_FILE_NAME);
  if (!existsSync(file)) {
    const serve = command('serve');
    // The app opens the default data directory (or AIRLOCK_DATA_DIR's): named with --data-dir, serve is the way.
    const ways = serve.includes(' --data-dir ') ? `\`${serve}\`` : `\`${serve}\` or the app`;
    throw new Error(`no request log in ${dataDir}: start Airlock (${ways}) and send a request first`);
  }
  const db = new DatabaseSync(file, { readOnly: true, timeout: 5_000 });
  const version = Number(readPragma(db, 'user_version'));
  if (version !== SCHEMA_VERSION) {
    db.close();
    throw new Error(
      `the request log in ${dataDir} has schema ${version}, this Airlock reads ${SCHEMA_VERSION}: ${version < SCHEMA_VERSION ? 'start this Airlock once to update it' : 'update Airlock'}, then export again`,
    );
  }
  // A row keeps the secrets known when it was written masked; those known now are masked as it is read.
  return { queries: new RequestLogQueries(db, secretsNow), sessions: new SessionQueries(db, secretsNow), close: () => db.close() };
}
