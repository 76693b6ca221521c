/**
 * The port between the idempotency cache (spend/) and its durable second level, the log database
 * (store/write/idempotentAnswers.ts): docs/gateway-spec.md §3, a keyed creation is answered once.
 */

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * The request a key was first used for: `requestId` names it; `fingerprint` hashes its method, path
 * and body (null for a first recorded without one), so a key reused for another request is told apart.
 */
export interface FirstOfKey {
  requestId: string;
  createdAtMs: number;
  fingerprint: string | null;
}

/** What the durable store holds for one key. */
export type PersistedIdempotency =
  | ({ state: 'in_flight' } & FirstOfKey)
  | ({ state: 'answered'; response: StoredResponse } & FirstOfKey)
  | ({ state: 'not_kept' } & FirstOfKey);

/**
 * The second level. Calls are synchronous and rare (keyed image and video creations only). An
 * entry left `in_flight` by a run that stopped means the gateway may or may not have acted.
 */
export interface IdempotencyStore {
  /** The entry created after `sinceMs`, or null. */
  find(profileId: string, idempotencyKey: string, sinceMs: number): PersistedIdempotency | null;
  begin(profileId: string, idempotencyKey: string, first: FirstOfKey): void;
  /** `null`: the answer was not kept (too large), so a repeat is refused; the store may refuse to keep one too. */
  settle(profileId: string, idempotencyKey: string, response: StoredResponse | null): void;
  forget(profileId: string, idempotencyKey: string): void;
  /** Drops entries created before `beforeMs`, then the oldest until bodies fit in `maxBodyBytes`. */
  prune(beforeMs: number, maxBodyBytes: number): void;
}
