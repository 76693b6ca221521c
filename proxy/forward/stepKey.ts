import type { UpstreamTarget } from '../contracts/ports.ts';
import { KeyMasker } from '../core/keyMasker.ts';
import { secretsOf } from './stageRecords.ts';

/** What a resend found of the profile's key (StepKey.followForResend). */
export type FollowedKey = 'kept' | 'replaced' | 'removed';

/**
 * The gateway key one exchange step's attempts go with. The step starts on the key its target was
 * resolved with; a resend asks for the profile's key as it is then (UpstreamTarget.keyNow), since the
 * window or the CLI may have replaced or removed it while the request waited out its backoff. A key
 * the user replaced is not sent again (it may be revoked, or replaced for its 429s), a removed one is
 * not sent at all. The target and the masker follow the key, so the answer is masked, and the step
 * settled, with every key it was sent with.
 */
export class StepKey {
  #target: UpstreamTarget;
  #masker: KeyMasker;

  constructor(target: UpstreamTarget) {
    this.#target = target;
    this.#masker = KeyMasker.forKeys(secretsOf(target));
  }

  /** The step's target with the key its last attempt went with (and the replaced ones among its retired keys). */
  get target(): UpstreamTarget {
    return this.#target;
  }

  get masker(): KeyMasker {
    return this.#masker;
  }

  /** The key the next attempt goes with: a pool's current key (its lease moves it), else the profile's. */
  get apiKey(): string {
    return this.#target.keyLease?.current.apiKey ?? this.#target.apiKey;
  }

  /**
   * For a send outside the attempts (a model-not-found answer's model lookup): the target with the key
   * as it is now, or null once it was taken away. A pool's is its current key (the lease may have moved
   * on from the first one after a 429 or a rejection), while the pool holds it as it was.
   */
  targetNow(): UpstreamTarget | null {
    const lease = this.#target.keyLease;
    if (lease !== undefined) return lease.holdsCurrent() ? { ...this.#target, apiKey: lease.current.apiKey } : null;
    return this.followForResend() === 'removed' ? null : this.#target;
  }

  /** Before a resend: takes the profile's key as it is now. A pool's lease and a key from the environment have no `keyNow`. */
  followForResend(): FollowedKey {
    const now = this.#target.keyNow?.(this.#target.profile.id);
    if (now === undefined || now === this.#target.apiKey) return 'kept';
    if (now === null) return 'removed';
    const replaced = this.#target.apiKey;
    this.#target = { ...this.#target, apiKey: now, retiredKeys: [...(this.#target.retiredKeys ?? []), replaced] };
    this.#masker = KeyMasker.forKeys(secretsOf(this.#target));
    return 'replaced';
  }
}
