/**
 * The port between the idempotency cache (spend/) and its durable second level, the log database
 * (store/write/idempotentAnswers.ts): docs/gateway-spec.md §3, a keyed creation is answered once.
 */

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** What the durable store holds for one key; `requestId` names the request that was sent. */
export type PersistedIdempotency =
  | { state: 'in_flight'; requestId: string; createdAtMs: number }
  | { state: 'answered'; requestId: string; createdAtMs: number; response: StoredResponse }
  | { state: 'not_kept'; requestId: string; createdAtMs: number };

/**
 * The second level. Calls are synchronous and rare (keyed image and video creations only). An
 * entry left `in_flight` by a run that stopped means the gateway may or may not have acted.
 */
export interface IdempotencyStore {
  /** The entry created after `sinceMs`, or null. */
  find(profileId: string, idempotencyKey: string, sinceMs: number): PersistedIdempotency | null;
  begin(profileId: string, idempotencyKey: string, requestId: string, createdAtMs: number): void;
  /** `null`: the answer was not kept (too large), so a repeat is refused; the store may refuse to keep one too. */
  settle(profileId: string, idempotencyKey: string, response: StoredResponse | null): void;
  forget(profileId: string, idempotencyKey: string): void;
  /** Drops entries created before `beforeMs`, then the oldest until bodies fit in `maxBodyBytes`. */
  prune(beforeMs: number, maxBodyBytes: number): void;
}
