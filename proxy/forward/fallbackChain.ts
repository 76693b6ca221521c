import type { ErrorClass } from '../contracts/errors.ts';
import type { RequestFallback } from '../contracts/lifecycle.ts';
import type { FallbackHop, ProfileSpend } from '../contracts/log.ts';

/** The fallback steps of one request (contracts FallbackHop): empty until it falls back. */
export class FallbackChain {
  readonly #steps: FallbackHop[] = [];
  /** The step tried now. */
  #stepIndex = 0;
  /** The answering step's outcome is the gateway's, recorded when it failed; a success's comes from the answer. */
  #outcomeKnown = false;

  /** The step tried is over (`failed`), `skipped` were not sent; true when `next` is tried now. */
  fellBack(failed: FallbackHop, skipped: readonly FallbackHop[], next: Pick<FallbackHop, 'profileId' | 'model'> | null): boolean {
    if (this.#steps.length === 0) this.#steps.push(failed);
    else this.#steps[this.#stepIndex] = failed;
    this.#steps.push(...skipped);
    if (next === null) {
      this.#outcomeKnown = true;
      return false;
    }
    this.#steps.push({ profileId: next.profileId, model: next.model, status: null, errorClass: null });
    this.#stepIndex = this.#steps.length - 1;
    return true;
  }

  /** Who answers and the way there, the answering step's outcome as it stands; undefined when the request never fell back. */
  current(status: number, errorClass: ErrorClass | null): RequestFallback | undefined {
    const answering = this.#steps[this.#stepIndex];
    if (answering === undefined) return undefined;
    const chain = [...this.#steps];
    if (!this.#outcomeKnown) chain[this.#stepIndex] = { ...answering, status: status || null, errorClass };
    return { profileId: answering.profileId, upstreamModel: answering.model, chain };
  }
}

/**
 * The chain with what each profile the request left may be billed, on the first hop sent to it
 * (FallbackHop.costCredits): the log then counts it toward that profile's spend, and the answering
 * profile's is the row's cost less it.
 */
export function withLeftSpend(fallback: RequestFallback, leftSpend: readonly ProfileSpend[]): RequestFallback {
  const chain = [...fallback.chain];
  for (const spend of leftSpend) {
    // A run that got no status (a timeout, a reset after the gateway had it) is sent and may be billed
    // too: without a hop with a status, one with no refusal's note (sent), else any, or the log loses it.
    const hops = chain.filter((hop) => hop.profileId === spend.profileId);
    const carrier = hops.find((hop) => hop.status !== null) ?? hops.find((hop) => hop.note === undefined) ?? hops[0];
    if (carrier !== undefined) chain[chain.indexOf(carrier)] = { ...carrier, costCredits: spend.costCredits };
  }
  return { ...fallback, chain };
}
