import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ClientIdentity, HeldProfile, LocalRefusal, UpstreamTarget } from '../contracts/ports.ts';
import type { ClientProtocol } from '../contracts/usage.ts';
import type { IdempotencyTicket } from '../spend/idempotencyCache.ts';
import type { UnsentStep } from './fallback.ts';
import type { ExchangePlan } from './plan.ts';
import type { ClientBody } from './requestBody.ts';
import type { RequestTrace } from './trace.ts';
import type { TraceStart } from './traceShapes.ts';

/**
 * The records the forwarding stages hand on (admit → plan → gate → exchange → settle). Each stage
 * returns a refusal, `ANSWERED` (it answered the client itself and ended the trace), or the next
 * record, which only adds to the one it was given.
 */

/** A request before its exchange: the stop ends it at once (`signal`), and `exchangeStarts` hands it to the exchange's own. */
export interface StopBeforeExchange {
  readonly signal: AbortSignal;
  /** Called again (the handler's end calls it whatever happened), it does nothing. */
  exchangeStarts(): void;
}

export interface ForwardRequest {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly trace: RequestTrace;
  readonly method: string;
  /** The upstream path without the leading slash, and the query with its `?`. */
  readonly path: string;
  readonly query: string;
  /** The model the path names (an Azure deployment), which wins over the body's; null when it names none. */
  readonly pathModel: string | null;
  readonly protocol: ClientProtocol;
  readonly stop: StopBeforeExchange;
}

export interface Admitted extends ForwardRequest {
  readonly identity: ClientIdentity;
  readonly target: RequestTarget;
}

/**
 * The request's own profile, held at admission (every key of its pool cooling): it is planned and
 * gated as usual, nothing is sent to it, and the exchange goes straight to its fallback list.
 */
export interface HeldTarget extends HeldProfile {
  readonly unsent: UnsentStep;
}

export type RequestTarget = UpstreamTarget | HeldTarget;

export function isHeld(target: RequestTarget): target is HeldTarget {
  return 'unsent' in target;
}

/** Every key an answer for this target must not show. */
export function secretsOf(target: RequestTarget): readonly string[] {
  if (isHeld(target)) return target.secrets;
  const sent = target.keyLease?.secrets ?? [target.apiKey];
  return target.retiredKeys === undefined ? sent : [...sent, ...target.retiredKeys];
}

export interface Planned extends Admitted {
  readonly plan: ExchangePlan;
  /** The body as the client sent it, kept only when the profile has fallbacks: each step is planned from it. */
  readonly clientBody: ClientBody | null;
}

export interface Gated extends Planned {
  /** The idempotency ticket of a keyed creation's first request: settled with its outcome. */
  readonly firstOfKey: IdempotencyTicket | null;
}

/** What the request's `start` event says, as far as a stage knew it. */
export type KnownStart = Partial<Omit<TraceStart, 'method' | 'clientPath' | 'protocol'>>;

export interface Refused {
  readonly refusal: LocalRefusal;
  readonly known?: KnownStart;
  /** A probe, not a request: answered, never logged (Claude Code's `HEAD /v1` without a token). */
  readonly unlogged?: boolean;
}

export const ANSWERED = Symbol('answered');

export function isRefused(value: object | typeof ANSWERED): value is Refused {
  return typeof value === 'object' && 'refusal' in value;
}
