import {
  isLocalRefusal,
  type ClientAuthenticator,
  type LocalRefusal,
  type TargetRefusal,
  type TargetResolver,
} from '../contracts/ports.ts';
import { unsentStep } from './fallback.ts';
import type { IncomingHttpHeaders } from 'node:http';
import { WEBSOCKET_UNSUPPORTED } from './ownRefusals.ts';
import type { Admitted, ForwardRequest, HeldTarget, Refused } from './stageRecords.ts';

export interface AdmitServices {
  authenticator: ClientAuthenticator;
  targets: TargetResolver;
  /** The refusal while Airlock is paused or stopping, null while it forwards. */
  standingRefusal: () => LocalRefusal | null;
}

/**
 * The admit stage: Airlock running, the client token → identity, identity → target (profile
 * snapshot and key). A `HEAD` without a token is a client probing the address (Claude Code's
 * `HEAD /v1` at start), and a WebSocket handshake is a client asking for a transport Airlock does
 * not relay (Codex's Responses WebSocket, before it goes over to HTTP): both are answered, but
 * neither is a request and neither leaves a row. A profile held for now (every pooled key
 * cooling) whose fallback list may answer is admitted without a key.
 */
export function admit(request: ForwardRequest, services: AdmitServices): Admitted | Refused {
  if (asksForWebSocket(request.req.headers)) return { refusal: WEBSOCKET_UNSUPPORTED, unlogged: true };
  const standing = services.standingRefusal();
  if (standing !== null) return { refusal: standing };
  const identity = services.authenticator.authenticate(request.req.headers);
  if (isLocalRefusal(identity)) return { refusal: identity, unlogged: request.method === 'HEAD' };
  const target = services.targets.resolve(identity);
  if (!isLocalRefusal(target)) return { ...request, identity, target };
  const { held, refusal } = heldTarget(target);
  if (held !== null) return { ...request, identity, target: held };
  return { refusal, ...(identity.replayOf ? { known: { replayOf: identity.replayOf } } : {}) };
}

/** `Upgrade: websocket` (RFC 6455 section 4.1); another upgrade (h2c) may be ignored and the request answered as sent. */
function asksForWebSocket(headers: IncomingHttpHeaders): boolean {
  // Nearly every request has no Upgrade header: it pays one property read, no split.
  return headers.upgrade?.split(',').some((protocol) => protocol.trim().toLowerCase().startsWith('websocket')) === true;
}

/** The refusal without the held profile (which holds the pool's keys), and the target its fallback list is walked from, if any. */
function heldTarget(targetRefusal: TargetRefusal): { held: HeldTarget | null; refusal: LocalRefusal } {
  const { held, ...refusal } = targetRefusal;
  if (held === undefined || held.profile.fallbacks.length === 0) return { held: null, refusal };
  const unsent = unsentStep(refusal);
  return { held: unsent === null ? null : { ...held, unsent }, refusal };
}
