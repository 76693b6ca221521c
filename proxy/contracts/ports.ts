import type { IncomingHttpHeaders } from 'node:http';
import type { LocalErrorClass } from './errors.ts';
import type { ProfileSpend } from './log.ts';
import type { Profile } from './profile.ts';
import type { PromptCacheWrites, TokenUsage } from './usage.ts';

/**
 * The seams of the forwarding pipeline. `startServer` is given one implementation of each; the
 * headless CLI, the desktop app and the tests wire different ones (static profile vs profile file,
 * real keychain vs environment key). All are synchronous: nothing here may add I/O to a request.
 */

/** A refusal Airlock makes itself, before anything is sent upstream. */
export interface LocalRefusal {
  status: number;
  errorClass: LocalErrorClass;
  /** Says the cause and the fix, never a key or a token. */
  message: string;
  code?: string;
  headers?: Record<string, string>;
}

export function isLocalRefusal(value: unknown): value is LocalRefusal {
  return typeof value === 'object' && value !== null && 'errorClass' in value && 'status' in value;
}

/** Who is calling: the client token's name and, if pinned, its profile. */
export interface ClientIdentity {
  tokenName: string | null;
  pinnedProfileId: string | null;
  /** The model used when a request names none (per client token). */
  defaultModel?: string | null;
  /** A replay's identity (proxy/http/replayGrants.ts): the logged request it resends, kept on its row. */
  replayOf?: string;
}

/** Decides whether a request may use the proxy at all (client token; Host and Origin are checked before). */
export interface ClientAuthenticator {
  authenticate(headers: IncomingHttpHeaders): ClientIdentity | LocalRefusal;
}

/** Everything one request needs to reach the gateway, fixed when the request starts. */
export interface UpstreamTarget {
  profile: Profile;
  /** Already cleaned (see cleanApiKey). Never logged, never returned by any API. */
  apiKey: string;
  /** The key came from AIRLOCK_API_KEY for this run, not from the profile: fixing it means restarting with another. */
  keyFromEnvironment?: boolean;
  /** A pooled profile: `apiKey` is the lease's first key, and the exchange moves on to another after a 429 or a rejection. */
  keyLease?: KeyLease;
  /** Keys the profile had before a change, never sent: its answers mask them too (a gateway may echo one later). */
  retiredKeys?: readonly string[];
  /**
   * The profile's single key as it is now (null once removed), asked before a resend: the window or the CLI
   * may change it while the request waits (forward/stepKey.ts). Absent where no change reaches a running
   * request: a pool's lease, a key from AIRLOCK_API_KEY. Asked with the target's profile id: one function
   * serves every request, so a request whose key never changes makes no closure for it.
   */
  keyNow?: (profileId: string) => string | null;
}

/** A key of a pool as one attempt uses it: its id and label go to the log, the key only to the gateway. */
export interface PooledKeyUse {
  keyId: string;
  label: string;
  apiKey: string;
}

/** One request's use of a key pool (spend/keyPool.ts). */
export interface KeyLease {
  readonly current: PooledKeyUse;
  /** Every key of the pool, for masking: an answer must not show any of them. */
  readonly secrets: readonly string[];
  /** What the gateway said to the current key's attempt. */
  record(
    outcome: { kind: 'rate_limited'; cooldownMs: number } | { kind: 'rejected'; status: number } | { kind: 'answered' },
    atMs: number,
  ): void;
  /**
   * The next key this request has not tried and the pool may use now, or the refusal saying why there is none.
   * A key the pool no longer holds as the lease took it (removed, or given another secret while the request ran) is never one.
   */
  next(nowMs: number): PooledKeyUse | LocalRefusal;
  /** Whether the pool still holds the current key with its secret: asked before a resend goes with it. */
  holdsCurrent(): boolean;
}

export interface TargetResolver {
  resolve(identity: ClientIdentity): UpstreamTarget | TargetRefusal;
}

/**
 * A refusal of the request's own profile. `held` is set when the profile is known and only its
 * keys are out of use for now (a pool's keys cooling or rejected): the forwarding stages decide
 * whether the profile's fallback list may still answer (forward/fallback.ts).
 */
export interface TargetRefusal extends LocalRefusal {
  held?: HeldProfile;
}

/** The profile a request would have used, with no key it may send with now. */
export interface HeldProfile {
  profile: Profile;
  /** Every key of its pool, for masking: nothing is sent with them. */
  secrets: readonly string[];
}

/** How long an uploaded file's audio is, at most (audioDuration.ts). */
export interface UploadAudio {
  /** The most seconds the gateway may bill. */
  seconds: number;
  /** Read from the file's header (a WAV); otherwise bounded from its size, an over-count that is held but never refuses its own request. */
  exact: boolean;
}

/**
 * What a request is billed by that its body states exactly, known before sending (passthrough/billedUnits.ts):
 * the seconds of video a creation asks for, the characters a speech request speaks.
 */
export interface BilledUnits {
  videoSeconds?: number;
  speechCharacters?: number;
}

export interface SpendCheckInput {
  /** Airlock's request id: an admitted request's estimate is reserved until its outcome is recorded. */
  requestId: string;
  identity: ClientIdentity;
  profile: Profile;
  /** As UpstreamTarget says: the fix a refusal names differs. */
  keyFromEnvironment?: boolean;
  method: string;
  upstreamPath: string;
  upstreamModel: string | null;
  /** The name an alias or route resolved to `upstreamModel`: its price stands in where that has none. */
  routedFrom?: string | null;
  /** It runs a model the gateway bills (a POST naming one, not a token count): unpriced, a cap refuses it. */
  runsModel?: boolean;
  /** Estimated from the request body; null where the body was not parsed or no cap needs it. */
  estimatedInputTokens: number | null;
  /** The most output tokens the request allows, when it states it (its max_tokens, per choice); null when unbounded. */
  outputTokensBound: number | null;
  /** How many per-call prices the request may be billed for (the images it asks for with `n`); 1 when absent. */
  callsBound?: number;
  /** The audio an upload may be billed for, at a price per audio minute; null or absent when none. */
  uploadAudio?: UploadAudio | null;
  /** Video seconds or speech characters the body states, at a price per second or per 1M characters; null or absent when none. */
  billedUnits?: BilledUnits | null;
  /**
   * Where no cap asked for an input estimate: `inputBoundOf(inputSource)` gives a cheap bound of it
   * (no tokenizer), asked only if a cap set while the request runs reads the holds. One function for
   * every request, applied to the request's own plan, so a request without caps makes nothing for it.
   */
  inputSource?: object;
  inputBoundOf?: (source: object) => number | null;
  /** The prompt-cache writes `inputSource` asks for: asked only where a cap prices its input, which such writes cost more than. */
  cacheWritesOf?: (source: object) => PromptCacheWrites;
}

/** A running request's use and cost so far, as its in-flight row's `progress` estimates them. */
export interface SpendSoFar {
  usage: TokenUsage;
  costCredits: number | null;
}

export interface SpendOutcome {
  requestId: string;
  identity: ClientIdentity;
  profileId: string;
  status: number;
  /** The gateway rejected the key (class `auth`): the only outcome that opens the auth breaker. */
  keyRejected: boolean;
  /** The key the answering step was sent with: a rejection opens the breaker for that key, not for one set since; never kept. */
  apiKey?: string;
  costCredits: number | null;
  /** Of `costCredits`, what profiles a fallback left may be billed (their runs): theirs, not `profileId`'s. */
  leftSpend?: readonly ProfileSpend[];
  /** When the request started: its spend belongs to that local day and month, as its log row does. */
  startedAtMs: number;
  /** When it ended: the burst window and the auth breaker count from here. */
  atMs: number;
}

/** Budgets, burst guard, auth circuit breaker: decided in memory, O(1), before anything is sent. */
/** A fallback step's check: `ownProfile` when the step stays on the request's own profile, whose breaker it passed. */
export interface StepCheckInput extends SpendCheckInput {
  ownProfile: boolean;
}

export interface SpendGate {
  /** Whether `check` would use an input estimate: only a budget cap does, and counting tokens is not free. */
  needsInputEstimate(identity: ClientIdentity, profile: Profile): boolean;
  /** Whether the budget caps alone would admit this request at this estimate; no side effects. */
  budgetsAdmit(input: SpendCheckInput): boolean;
  /** `apiKey`: the key the request will be sent with, only so the auth breaker tells a replaced key from the rejected one; never kept. */
  check(input: SpendCheckInput, apiKey?: string): LocalRefusal | null;
  /**
   * A fallback step on another profile or model: that profile's budgets and (another profile's)
   * auth breaker. Admitted, the request's held estimate moves to the step's profile; refused, nothing changes.
   */
  admitStep(input: StepCheckInput, apiKey?: string): LocalRefusal | null;
  /** A sent step failed and the request moves on: its profile's breaker hears that the key was not rejected. */
  stepLeft(profileId: string): void;
  /**
   * Another run of a request after `runsBefore` runs the gateway may bill with no usage stated (its
   * 504, Airlock's idle timeout): its hold grows by their input, and the caps admit the new run as
   * they admit a request, with those runs counted. Null when admitted, else the cap it would cross.
   */
  admitResend?(input: SpendCheckInput, runsBefore: number): LocalRefusal | null;
  /** `profile` with its caps as configured now (a resend's, asked after its admission); the same profile where they did not change. */
  withCapsNow?(profile: Profile): Profile;
  /** Lowers an admitted request's held estimate to a closer one (a count after an upper bound); never raises it. */
  refineHold(input: SpendCheckInput): void;
  /** A running request's estimated spend so far (its `progress`), as it grows: the burst guard's credit rate counts it. */
  spentSoFar?(requestId: string, estimate: SpendSoFar): void;
  /** Called once per admitted request, when it ends (it releases the request's reservation). */
  recordOutcome(outcome: SpendOutcome): void;
}
