import type { ErrorClass } from '../contracts/errors.ts';
import type { RequestFallback } from '../contracts/lifecycle.ts';
import type { FallbackHop } from '../contracts/log.ts';
import { FallbackChain } from './fallbackChain.ts';
import type { UnstatedRun } from './unstatedRuns.ts';

/**
 * One request's attempts, as its trace (trace.ts) keeps them: how many went out (retries, and
 * those of the current fallback step), the fallback steps, whether the gateway may have run any of
 * them (upstreamExecution.ts decides), and those it may bill with no usage stated (unstatedRuns.ts).
 * Made with the trace; the fallback chain only when the request first falls back, as most never do.
 */
export class RequestAttempts {
  #ranInEarlierAttempt = false;
  #ranInThisAttempt = false;
  readonly #unstated: UnstatedRun[] = [];
  #retries = 0;
  #steps: FallbackChain | null = null;
  /** Retries made before the current step: each step has its own profile's retries. */
  #retriesBeforeStep = 0;
  /** The current step's resends that are none of the profile's retries: on a pool's next key, changed after a refusal, after an idle close. */
  #stepResendsBeyondPolicy = 0;

  get mayHaveRun(): boolean {
    return this.#ranInEarlierAttempt || this.#ranInThisAttempt;
  }
  /** The current attempt as judged so far; a later judgement of it replaces this one. */
  judged(mayHaveRun: boolean): void {
    this.#ranInThisAttempt = mayHaveRun;
  }
  ranUnstated(run: UnstatedRun): void {
    this.#unstated.push(run);
  }
  get unstated(): readonly UnstatedRun[] {
    return this.#unstated;
  }

  get retries(): number {
    return this.#retries;
  }
  /** Retries of the current fallback step (all of them when the request did not fall back), resends beyond the policy left out. */
  get stepRetries(): number {
    return this.#retries - this.#retriesBeforeStep - this.#stepResendsBeyondPolicy;
  }

  /** The current attempt is over and a further one is about to be sent. */
  retried(): void {
    this.#nextAttempt();
    this.#retries += 1;
  }

  /** A resend that is none of the profile's retries (RequestTrace.resentBeyondPolicy). */
  resentBeyondPolicy(): void {
    this.retried();
    this.#stepResendsBeyondPolicy += 1;
  }

  /** The step tried is over and `next`, if any, is tried now (RequestTrace.fellBack). */
  fellBack(failed: FallbackHop, skipped: readonly FallbackHop[], next: Pick<FallbackHop, 'profileId' | 'model'> | null): void {
    this.#steps ??= new FallbackChain();
    if (!this.#steps.fellBack(failed, skipped, next)) return;
    this.#nextAttempt();
    this.#retriesBeforeStep = this.#retries;
    this.#stepResendsBeyondPolicy = 0;
  }

  /** Who answers and the way there, with the answer's outcome as it stands; undefined when the request never fell back. */
  fallback(status: number, errorClass: ErrorClass | null): RequestFallback | undefined {
    return this.#steps?.current(status, errorClass);
  }

  /** The current attempt is over and another (a retry, a fallback step) goes out. */
  #nextAttempt(): void {
    this.#ranInEarlierAttempt ||= this.#ranInThisAttempt;
    this.#ranInThisAttempt = false;
  }
}
