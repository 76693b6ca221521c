import type { IdempotencyStore } from '../contracts/idempotencyStore.ts';
import type { NoticeKind } from '../contracts/notices.ts';
import { IdempotencyCache } from '../spend/idempotencyCache.ts';
import { isDamageError } from '../store/logCheck.ts';

/**
 * Keyed creations' answers, kept in the request log's store: a write that fails goes on from memory
 * (a repeat after a restart is sent again), a read that fails refuses the key. A damaged log is told
 * by the log's own notice (restart, which sets it aside); this store's notice, to free disk space,
 * would contradict it.
 */
export function keyedCreationsCache(store: IdempotencyStore, tell: (kind: NoticeKind, message: string) => void): IdempotencyCache {
  return new IdempotencyCache(
    {},
    {
      store,
      onStoreError: (error) => {
        if (!isDamageError(error))
          tell('idempotency_store_failed', `idempotency keys' store: ${error instanceof Error ? error.message : 'failed'}`);
      },
    },
  );
}
