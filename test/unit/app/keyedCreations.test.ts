import { describe, expect, it } from 'vitest';
import { keyedCreationsCache } from '../../../proxy/app/keyedCreations.ts';
import type { IdempotencyStore } from '../../../proxy/contracts/idempotencyStore.ts';
import { RESTART_FOR_DAMAGED_LOG } from '../../../proxy/store/logCheck.ts';

/** A log whose reads fail with `error`; writes are not reached by a refused key. */
function unreadableStore(error: Error): IdempotencyStore {
  const fail = (): never => {
    throw error;
  };
  return { find: fail, begin: fail, settle: fail, forget: fail, prune: fail };
}

/** SQLite's errcode for a damaged file (SQLITE_CORRUPT), as node:sqlite sets it. */
function damaged(): Error {
  return Object.assign(new Error('database disk image is malformed'), { errcode: 11 });
}

describe('a keyed creation whose record in the log cannot be read', () => {
  it('is refused for a damaged log with the wording every damaged-log message shares, and no notice of its own', async () => {
    const told: string[] = [];
    const cache = keyedCreationsCache(unreadableStore(damaged()), (kind) => told.push(kind));
    const claim = await cache.claim('main', 'k', 'alk_1');
    expect(claim).toMatchObject({ kind: 'refused', refusal: { status: 409, code: 'idempotency_key_unverifiable' } });
    expect(claim.kind === 'refused' && claim.refusal.message).toContain(RESTART_FOR_DAMAGED_LOG);
    expect(told).toEqual([]);
  });

  it.each([
    ['a busy log', new Error('database is locked')],
    ['a disk error', Object.assign(new Error('disk I/O error'), { errcode: 10 })],
    ['a closed log', new Error('database is not open')],
  ])('is refused for %s as unavailable for now, without sending the user to restart for damage', async (_case, error) => {
    const told: string[] = [];
    const cache = keyedCreationsCache(unreadableStore(error), (kind) => told.push(kind));
    const claim = await cache.claim('main', 'k', 'alk_1');
    expect(claim).toMatchObject({
      kind: 'refused',
      refusal: { status: 503, errorClass: 'log_unreadable', code: 'idempotency_key_unverifiable' },
    });
    const message = claim.kind === 'refused' ? claim.refusal.message : '';
    expect(message).not.toMatch(/restart|damaged/i);
    expect(message).toMatch(/same idempotency key/);
    expect(told).toEqual(['idempotency_store_failed']);
  });
});
