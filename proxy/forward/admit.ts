import {
  isLocalRefusal,
  type ClientAuthenticator,
  type LocalRefusal,
  type TargetRefusal,
  type TargetResolver,
} from '../contracts/ports.ts';
import { unsentStep } from './fallback.ts';
import { PAUSED } from './ownRefusals.ts';
import type { Admitted, ForwardRequest, HeldTarget, Refused } from './stageRecords.ts';

export interface AdmitServices {
  authenticator: ClientAuthenticator;
  targets: TargetResolver;
  isPaused: () => boolean;
}

/**
 * The admit stage: Airlock running, the client token → identity, identity → target (profile
 * snapshot and key). A `HEAD` without a token is a client probing the address (Claude Code's
 * `HEAD /v1` at start): it is answered, but it is no request and leaves no row. A profile held for
 * now (every pooled key cooling) whose fallback list may answer is admitted without a key.
 */
export function admit(request: ForwardRequest, services: AdmitServices): Admitted | Refused {
  if (services.isPaused()) return { refusal: PAUSED };
  const identity = services.authenticator.authenticate(request.req.headers);
  if (isLocalRefusal(identity)) return { refusal: identity, unlogged: request.method === 'HEAD' };
  const target = services.targets.resolve(identity);
  if (!isLocalRefusal(target)) return { ...request, identity, target };
  const { held, refusal } = heldTarget(target);
  if (held !== null) return { ...request, identity, target: held };
  return { refusal, ...(identity.replayOf ? { known: { replayOf: identity.replayOf } } : {}) };
}

/** The refusal without the held profile (which holds the pool's keys), and the target its fallback list is walked from, if any. */
function heldTarget(targetRefusal: TargetRefusal): { held: HeldTarget | null; refusal: LocalRefusal } {
  const { held, ...refusal } = targetRefusal;
  if (held === undefined || held.profile.fallbacks.length === 0) return { held: null, refusal };
  const unsent = unsentStep(refusal);
  return { held: unsent === null ? null : { ...held, unsent }, refusal };
}
