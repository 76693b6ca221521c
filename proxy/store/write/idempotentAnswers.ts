import { createHash } from 'node:crypto';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { FirstOfKey, IdempotencyStore, PersistedIdempotency, StoredResponse } from '../../contracts/idempotencyStore.ts';
import { containsKnownSecret } from '../../core/redact.ts';
import { parseHeaders } from './rowCodec.ts';

/** The key is the client's; only its hash is stored, which is all a lookup needs. */
function keyHashOf(idempotencyKey: string): string {
  return createHash('sha256').update(idempotencyKey).digest('hex');
}

/**
 * A replay must be the first answer exactly, so an answer is never masked here: one that holds a
 * known secret in any form is not kept at all, and its repeat is refused rather than resent.
 */
function holdsKnownSecret(response: StoredResponse, knownSecrets: string[]): boolean {
  return containsKnownSecret(Buffer.concat([response.body, Buffer.from(JSON.stringify(response.headers))]), knownSecrets);
}

/** The `idempotent_answers` table of the request log's database, behind the cache's store interface. */
export class SqliteIdempotencyStore implements IdempotencyStore {
  readonly #knownSecrets: () => string[];
  readonly #select: StatementSync;
  readonly #begin: StatementSync;
  readonly #settle: StatementSync;
  readonly #forget: StatementSync;
  readonly #pruneByAge: StatementSync;
  readonly #bodyBytes: StatementSync;
  readonly #pruneOldest: StatementSync;

  constructor(db: DatabaseSync, knownSecrets: () => string[]) {
    this.#knownSecrets = knownSecrets;
    this.#select = db.prepare(
      `SELECT request_id, created_at_ms, request_fingerprint, state, status, headers, body FROM idempotent_answers
       WHERE profile_id = ? AND key_hash = ? AND created_at_ms > ?`,
    );
    // A new first replaces an entry whose window ended (or one the gateway refused).
    this.#begin = db.prepare(
      `INSERT OR REPLACE INTO idempotent_answers (profile_id, key_hash, request_id, created_at_ms, request_fingerprint, state)
       VALUES (?, ?, ?, ?, ?, 'in_flight')`,
    );
    this.#settle = db.prepare(
      'UPDATE idempotent_answers SET state = ?, status = ?, headers = ?, body = ? WHERE profile_id = ? AND key_hash = ?',
    );
    this.#forget = db.prepare('DELETE FROM idempotent_answers WHERE profile_id = ? AND key_hash = ?');
    this.#pruneByAge = db.prepare('DELETE FROM idempotent_answers WHERE created_at_ms < ?');
    this.#bodyBytes = db.prepare('SELECT COALESCE(SUM(LENGTH(body)), 0) AS bytes FROM idempotent_answers');
    this.#pruneOldest = db.prepare(
      `DELETE FROM idempotent_answers WHERE rowid = (
         SELECT rowid FROM idempotent_answers WHERE body IS NOT NULL ORDER BY created_at_ms LIMIT 1)`,
    );
  }

  find(profileId: string, idempotencyKey: string, sinceMs: number): PersistedIdempotency | null {
    const row = this.#select.get(profileId, keyHashOf(idempotencyKey), sinceMs);
    if (row === undefined) return null;
    const first: FirstOfKey = {
      requestId: String(row.request_id),
      createdAtMs: Number(row.created_at_ms),
      fingerprint: typeof row.request_fingerprint === 'string' ? row.request_fingerprint : null,
    };
    if (row.state === 'in_flight') return { state: 'in_flight', ...first };
    if (row.state === 'not_kept' || !(row.body instanceof Uint8Array)) return { state: 'not_kept', ...first };
    const response: StoredResponse = { status: Number(row.status), headers: parseHeaders(row.headers), body: Buffer.from(row.body) };
    return { state: 'answered', ...first, response };
  }

  begin(profileId: string, idempotencyKey: string, first: FirstOfKey): void {
    this.#begin.run(profileId, keyHashOf(idempotencyKey), first.requestId, first.createdAtMs, first.fingerprint);
  }

  settle(profileId: string, idempotencyKey: string, response: StoredResponse | null): void {
    const keyHash = keyHashOf(idempotencyKey);
    if (response === null || holdsKnownSecret(response, this.#knownSecrets())) {
      this.#settle.run('not_kept', response?.status ?? null, null, null, profileId, keyHash);
      return;
    }
    this.#settle.run('answered', response.status, JSON.stringify(response.headers), response.body, profileId, keyHash);
  }

  forget(profileId: string, idempotencyKey: string): void {
    this.#forget.run(profileId, keyHashOf(idempotencyKey));
  }

  prune(beforeMs: number, maxBodyBytes: number): void {
    this.#pruneByAge.run(beforeMs);
    while (Number(this.#bodyBytes.get()?.bytes ?? 0) > maxBodyBytes) {
      if (Number(this.#pruneOldest.run().changes) === 0) return;
    }
  }
}
