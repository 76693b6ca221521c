import type { IdempotencyStore } from '../contracts/idempotencyStore.ts';
import type { NoticeKind } from '../contracts/notices.ts';
import type { LocalRefusal } from '../contracts/ports.ts';
import { IdempotencyCache, UNREADABLE_STORE_REFUSAL } from '../spend/idempotencyCache.ts';
import { isDamageError, RESTART_FOR_DAMAGED_LOG } from '../store/logCheck.ts';

/** A damaged log: the key stays unverifiable until the restart that sets the log aside, so 409 as for any key in conflict. */
const DAMAGED_LOG_REFUSAL: LocalRefusal = {
  status: 409,
  errorClass: 'invalid_request',
  code: 'idempotency_key_unverifiable',
  message:
    'The request log, where Airlock keeps keyed image and video creations, is damaged, so Airlock cannot tell whether a request with this idempotency key ' +
    `was already sent, and it does not send it to avoid creating the task twice. ${RESTART_FOR_DAMAGED_LOG}; or use a new key to create a new task.`,
};

/**
 * Keyed creations' answers, kept in the request log's store: a write that fails goes on from memory
 * (a repeat after a restart is sent again), a read that fails refuses the key: a damaged log until
 * the restart that sets it aside, in the words every damaged-log message shares; other failures for
 * now. A damaged log is told by the log's own notice; this store's notice, to free disk space, would
 * contradict it.
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
      unreadableRefusal: (error) => (isDamageError(error) ? DAMAGED_LOG_REFUSAL : UNREADABLE_STORE_REFUSAL),
    },
  );
}
