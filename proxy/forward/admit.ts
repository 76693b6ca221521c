import { isLocalRefusal, type ClientAuthenticator, type TargetResolver } from '../contracts/ports.ts';
import { PAUSED } from './ownRefusals.ts';
import type { Admitted, ForwardRequest, Refused } from './stageRecords.ts';

export interface AdmitServices {
  authenticator: ClientAuthenticator;
  targets: TargetResolver;
  isPaused: () => boolean;
}

/**
 * The admit stage: Airlock running, the client token → identity, identity → target (profile
 * snapshot and key). A `HEAD` without a token is a client probing the address (Claude Code's
 * `HEAD /v1` at start): it is answered, but it is no request and leaves no row.
 */
export function admit(request: ForwardRequest, services: AdmitServices): Admitted | Refused {
  if (services.isPaused()) return { refusal: PAUSED };
  const identity = services.authenticator.authenticate(request.req.headers);
  if (isLocalRefusal(identity)) return { refusal: identity, unlogged: request.method === 'HEAD' };
  const target = services.targets.resolve(identity);
  if (isLocalRefusal(target)) return { refusal: target, ...(identity.replayOf ? { known: { replayOf: identity.replayOf } } : {}) };
  return { ...request, identity, target };
}
