import type { IncomingHttpHeaders } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import type { UpstreamErrorClass } from '../contracts/errors.ts';
import type { Profile } from '../contracts/profile.ts';
import { isLocalRefusal, type KeyLease, type LocalRefusal, type SpendGate } from '../contracts/ports.ts';
import { resendAdmitted, type Requester } from './gate.ts';
import { rateLimitCooldownMs } from './keyCooldown.ts';
import { classifyNetworkFailure, classifyUpstreamResponse, networkFailureCode } from '../core/errorClass.ts';
import type { KeyMasker } from '../core/keyMasker.ts';
import type { StepKey } from './stepKey.ts';
import type { AbortReason, ExchangeWatch } from './exchangeWatch.ts';
import { headerValue, pickUpstreamRequestId, sendWithKey } from './headers.ts';
import { routeFor } from '../protocols/registry.ts';
import type { ExchangePlan } from './plan.ts';
import { decideRetry, retryAdviceOf, type AttemptOutcome } from './retryPolicy.ts';
import type { RequestTrace } from './trace.ts';
import { answerText, readBody, type UpstreamBody } from './upstreamBody.ts';
import { idempotencyKeyOf } from '../spend/idempotencyRequest.ts';
import { BUDGET_HEADER, REFUSED_LOCALLY } from '../spend/budgetDecision.ts';
import { clientRetriesItself } from './clientRetries.ts';
import { dispatchUpstream, type UpstreamResponse } from './upstreamClient.ts';
import { mayHaveExecuted, type UpstreamAttempt } from './upstreamExecution.ts';
import { billedWithoutUsage } from './unstatedRuns.ts';
import { streamProgressEstimate } from './accounting.ts';

const ERROR_BODY_LIMIT_BYTES = 256 * 1024;
const IDLE_CLOSE_NOTE =
  "Resent once on a new connection: the gateway closed the kept-alive connection it was sent on, idle, before reading it (its keep-alive timeout is shorter than Airlock's).";
/**
 * An error body is read past what is kept so its connection can serve the next request; past this
 * the answer is cut instead: one that never ends held its client until the total timeout.
 */
const ERROR_BODY_READ_MAX_BYTES = 16 * 1024 * 1024;

/** How the attempts ended: an answer to relay, a gateway error, a broken exchange, or our own abort. */
export type AttemptsResult =
  | { kind: 'answer'; response: UpstreamResponse; contentType: string | null; upstreamRequestId: string | null }
  | {
      kind: 'error';
      errorClass: UpstreamErrorClass;
      status: number;
      headers: IncomingHttpHeaders;
      /** The body's start, as text: the error message and the log's copy. */
      bodyText: string;
      upstreamRequestId: string | null;
    }
  /** A pooled request's 429 left no key of the pool to move on to: the pool's refusal says when one frees. */
  | { kind: 'pool_exhausted'; status: number; headers: IncomingHttpHeaders; bodyText: string; refusal: LocalRefusal }
  | { kind: 'network'; errorClass: UpstreamErrorClass; error: unknown }
  /** Refused by Airlock once a body sent on while it arrived had ended (arrivingBody.ts): the upload was stopped short. */
  | { kind: 'refused'; refusal: LocalRefusal }
  | { kind: 'aborted'; reason: AbortReason };

export interface AttemptsInput {
  url: string;
  headers: Record<string, string>;
  plan: ExchangePlan;
  profile: Profile;
  trace: RequestTrace;
  watch: ExchangeWatch;
  /** The key the attempts go with and its masker; a resend follows it to the profile's key as it is then. */
  key: StepKey;
  /** Read only when an attempt failed: whether the request has an idempotency key, and whether its client retries itself. */
  clientHeaders: IncomingHttpHeaders;
  /** A pooled profile's lease: a 429 or a rejected key moves the request on to the pool's next key. */
  keyLease?: KeyLease | undefined;
  /** Asked whether the caps admit another run after runs the gateway may bill unstated (gate.ts resendAdmitted); absent: no cap to ask. */
  spendGate?: SpendGate | undefined;
  requester?: Requester | undefined;
  /**
   * How many of the request's runs the gateway may bill came before this step (exchange.ts): the
   * step's own are counted from there, those of a plan a 400 fixed included; absent, all of them.
   */
  stepRunsFrom?: number;
}

/** Sends the request until an answer counts, retrying per docs/gateway-spec.md §7 and retryPolicy.ts. */
export async function sendWithRetries(input: AttemptsInput): Promise<AttemptsResult> {
  const { plan, profile, trace, watch } = input;
  // At most one resend after an idle close (closedWhileIdle). It meets no other stale connection:
  // undici's pool hands a request to its first client not busy, which was the one whose connection
  // closed (it took the request first), so the resend makes it a new connection (idleClose.test.ts).
  // That holds while the resend goes out in the failure's own turn: an await before it could let
  // another request take that client first.
  let resentAfterIdleClose = false;
  for (;;) {
    let reachedSocket = false;
    let closedIdle = false;
    let response: UpstreamResponse;
    try {
      response = await dispatchUpstream({
        url: input.url,
        method: plan.method,
        headers: input.headers,
        body: plan.body,
        ...(plan.arriving ? { arriving: plan.arriving } : {}),
        signal: watch.signal,
        connectTimeoutMs: profile.timeouts.connectTimeoutMs,
        idleTimeoutMs: profile.timeouts.idleTimeoutMs,
        onReachedSocket: () => {
          reachedSocket = true;
          const ranBefore = trace.upstreamMayHaveRun;
          if (judgeAttempt(trace, { reachedSocket, answered: false }) && !ranBefore) recordInputSent(input);
        },
        onIdleClose: () => {
          closedIdle = true;
        },
      });
    } catch (error) {
      // Ended unanswered (the client gone, a timeout, a reset): judged before the abort returns, since it may be billed.
      const mayHaveRun = attemptEnded(input, { reachedSocket, answered: false, closedIdle });
      // A body sent on while it arrived, refused at its end or when the server's requestTimeout ended its read (arrivingBody.ts).
      // One that broke otherwise needs no case of its own: it breaks when its client leaves or the proxy stops, which abort
      // the watch before undici's failure comes here.
      const refused = plan.arriving?.refusal(true);
      if (refused) return { kind: 'refused', refusal: refused };
      const aborted = watch.reason();
      if (aborted !== null) return { kind: 'aborted', reason: aborted };
      if (closedIdle && !resentAfterIdleClose) {
        // At once, whatever the policy and the client's own retries: the gateway has not read it.
        trace.resentBeyondPolicy();
        trace.notedLater(IDLE_CLOSE_NOTE);
        resentAfterIdleClose = true;
        continue;
      }
      const errorClass = classifyNetworkFailure(error);
      const code = networkFailureCode(error);
      if (await retried(input, { kind: 'network', errorClass, mayHaveExecuted: mayHaveRun, code })) continue;
      const abortedWaiting = watch.reason();
      return abortedWaiting === null ? { kind: 'network', errorClass, error } : { kind: 'aborted', reason: abortedWaiting };
    }
    attemptEnded(input, { reachedSocket, answered: true, status: response.statusCode });
    // A gateway may build its request id from what it was sent: the id is logged and shown.
    const picked = pickUpstreamRequestId(response.headers);
    const upstreamRequestId = picked === null ? null : input.key.masker.maskText(picked);
    trace.attemptAnswered(upstreamRequestId);
    const contentType = headerValue(response.headers, 'content-type');
    if (response.statusCode < 400 && !(contentType !== null && /text\/html/i.test(contentType)) && !isProtocolRedirect(plan, response)) {
      input.keyLease?.record({ kind: 'answered' }, Date.now());
      return { kind: 'answer', response, contentType, upstreamRequestId };
    }
    const bodyText = await readCappedMasked(response.body, ERROR_BODY_LIMIT_BYTES, input.key.masker);
    // Its client gone (or the total time or the proxy's stop) while the error's body came: nothing is sent again.
    const abortedReading = watch.reason();
    if (abortedReading !== null) return { kind: 'aborted', reason: abortedReading };
    const errorClass =
      classifyUpstreamResponse({
        status: response.statusCode,
        contentType,
        bodyText,
        expectJson: true,
        optionalApi: isOptionalApi(plan, profile.baseUrl),
      }) ?? 'upstream_error';
    if (input.keyLease) {
      const switched = nextPoolKey(input, input.keyLease, response, errorClass);
      if (switched === true) continue;
      if (switched !== false) {
        const aborted = watch.reason();
        if (aborted !== null) return { kind: 'aborted', reason: aborted };
        return { kind: 'pool_exhausted', status: response.statusCode, headers: response.headers, bodyText, refusal: switched };
      }
    }
    if (await retried(input, { kind: 'status', status: response.statusCode, ...retryAdviceOf(response.headers), errorClass })) continue;
    const aborted = watch.reason();
    if (aborted !== null) return { kind: 'aborted', reason: aborted };
    return { kind: 'error', errorClass, status: response.statusCode, headers: response.headers, bodyText, upstreamRequestId };
  }
}

/**
 * A pooled request after an error answer: a 429 cools the key for the gateway's Retry-After, a
 * rejection (class `auth`) opens the key's own breaker, and either moves the request on to the
 * pool's next key at once, since neither ran the request (true). Any other answer only clears a
 * rejected key's probe (false: the usual retry rules decide). With no key to move to, a pool whose
 * keys wait out 429s gives its refusal; one whose other keys were all rejected, the gateway's answer.
 */
function nextPoolKey(
  input: AttemptsInput,
  lease: KeyLease,
  response: UpstreamResponse,
  errorClass: UpstreamErrorClass,
): boolean | LocalRefusal {
  const nowMs = Date.now();
  if (errorClass === 'rate_limited') {
    lease.record({ kind: 'rate_limited', cooldownMs: rateLimitCooldownMs(response.headers, nowMs) }, nowMs);
  } else if (errorClass === 'auth') {
    lease.record({ kind: 'rejected', status: response.statusCode }, nowMs);
  } else {
    lease.record({ kind: 'answered' }, nowMs);
    return false;
  }
  const next = lease.next(nowMs);
  // A key left that only waits out a 429 makes the pool's answer "wait", even after a rejection: a
  // 401 tells the client its key is bad (Claude Code asks to sign in). With none, the gateway's own answer.
  if (isLocalRefusal(next)) return next.errorClass === 'keys_cooling' ? next : false;
  sendWithKey(input.headers, next.apiKey);
  input.trace.keyUsed(next.keyId, next.label);
  input.trace.resentBeyondPolicy();
  return true;
}

/**
 * A model API answers, it never redirects: a 3xx there is the base URL's scheme, host or path
 * (http for https, a missing /v1), classed as such. Passed on, it was logged as a success and a
 * client that follows it reached the gateway without Airlock. Other routes (a file's download, say)
 * may point elsewhere, and their 3xx goes to the client.
 */
function isProtocolRedirect(plan: ExchangePlan, response: UpstreamResponse): boolean {
  return response.statusCode >= 300 && response.statusCode < 400 && routeFor(plan.upstreamPath, plan.method).endpoint !== 'other';
}

/**
 * An API a gateway may not offer: any path no protocol of Airlock's owns (embeddings, images, audio,
 * rerank, files, moderations, legacy completions, one model's record) but the model list, which
 * every gateway serves (docs/gateway-spec.md §4.1), so a page there still says the base URL is wrong.
 * The spec describes no GET /models/{id}: a gateway may lack it where its list works.
 */
function isOptionalApi(plan: ExchangePlan, baseUrl: string): boolean {
  return routeFor(plan.upstreamPath, plan.method).endpoint === 'other' && plan.upstreamPath !== 'models' && endsInOneVersion(baseUrl);
}

/**
 * Whether the base URL's path ends in one version segment (`/v1`, `/api/v3`, `/v1beta`), as the
 * spec's {base_url} does. One without it (`https://openrouter.ai/api`) or with two (`/v1/v1`) reaches
 * a site's pages for every path, so a page there says the base URL is wrong, whatever the API.
 */
function endsInOneVersion(baseUrl: string): boolean {
  const segments =
    URL.parse(baseUrl)
      ?.pathname.split('/')
      .filter((segment) => segment !== '') ?? [];
  return VERSION_SEGMENT.test(segments.at(-1) ?? '') && !VERSION_SEGMENT.test(segments.at(-2) ?? '');
}

const VERSION_SEGMENT = /^v\d+(alpha|beta)?\d*$/i;

/** Whether the gateway may have run this attempt (upstreamExecution.ts); a later judgement of the same attempt replaces it. */
function judgeAttempt(trace: RequestTrace, attempt: UpstreamAttempt): boolean {
  const mayHaveRun = mayHaveExecuted(attempt);
  trace.attemptMayHaveRun(mayHaveRun);
  return mayHaveRun;
}

/**
 * The gateway may run the request from here: its in-flight row carries the input estimate (bytes,
 * as a stream's progress counts them), so a crash before the answer leaves it counted at the next
 * start, as the end would count an attempt left unanswered (unstatedRuns.ts). It rides the row's
 * own write (a non-stream's is held, IN_FLIGHT_ROW_DELAY_MS), and an end replaces it. A request
 * whose bytes are no tokens (an upload's audio) records none: its cost is no count of bytes.
 */
function recordInputSent(input: AttemptsInput): void {
  if (input.plan.upstreamModel === null) return;
  const estimate = streamProgressEstimate(input.plan, input.profile)(0);
  if (estimate.usage.inputTokens > 0) input.trace.estimated(estimate);
}

/** The attempt's last judgement; one the gateway may bill with no usage stated is kept for the row's cost (unstatedRuns.ts). */
function attemptEnded(input: AttemptsInput, attempt: UpstreamAttempt): boolean {
  if (billedWithoutUsage(attempt, input.plan)) input.trace.attempts.ranUnstated({ plan: input.plan, profile: input.profile });
  return judgeAttempt(input.trace, attempt);
}

/** Decides, and waits out the backoff; false when the answer goes to the client. */
async function retried(input: AttemptsInput, outcome: AttemptOutcome): Promise<boolean> {
  const { plan, trace, watch } = input;
  const decision = decideRetry({
    retriesSoFar: trace.stepRetries,
    method: plan.method,
    upstreamPath: plan.upstreamPath,
    outcome,
    bytesSentToClient: false,
    hasIdempotencyKey: idempotencyKeyOf(input.clientHeaders) !== null,
    clientRetries: clientRetriesItself(input.clientHeaders),
    policy: input.profile.retry,
    random: Math.random,
    nowMs: Date.now(),
    msLeft: watch.msLeft(),
  });
  if (!decision.retry) {
    if (decision.mayHaveRun) trace.notedLater(`Not resent: ${decision.reason}.`);
    return false;
  }
  // Each run the gateway had may be billed its input (a 504 resent for a keyed request): a run past a cap is not sent.
  // The step's runs, not only this plan's: one a 400 fixed (a parameter renamed) may bill the runs before the fix too.
  const runsBefore = trace.attempts.unstated.length - (input.stepRunsFrom ?? 0);
  const refusal = runsBefore > 0 && input.spendGate !== undefined ? await resendAdmitted(input, runsBefore) : null;
  if (refusal !== null) {
    trace.notedLater(resendRefusedNote(refusal));
    return false;
  }
  try {
    await delay(decision.delayMs, undefined, { signal: watch.signal });
  } catch {
    return false;
  }
  if (!followKey(input)) return false;
  trace.retried();
  return true;
}

/**
 * A resend goes with the profile's key as it is when it is sent (StepKey): not with one the user
 * replaced while it waited, and not at all once the key was removed. The gateway's last answer then
 * goes to the client, and the row says why nothing more was sent.
 */
function followKey(input: AttemptsInput): boolean {
  if (input.keyLease) return followPoolKey(input, input.keyLease);
  const followed = input.key.followForResend();
  if (followed === 'removed') {
    input.trace.notedLater(
      `Not resent: the gateway key of profile "${input.profile.id}" was removed while the request waited to be resent.`,
    );
    return false;
  }
  if (followed === 'replaced') sendWithKey(input.headers, input.key.apiKey);
  return true;
}

/** A pooled resend: on its key while the pool holds it as it was, else on the pool's next key, else not at all. */
function followPoolKey(input: AttemptsInput, lease: KeyLease): boolean {
  if (lease.holdsCurrent()) return true;
  const next = lease.next(Date.now());
  if (isLocalRefusal(next)) {
    input.trace.notedLater(
      `Not resent: key ${lease.current.keyId} of profile "${input.profile.id}" was removed or replaced while the request waited to be resent, and no other key of the pool could take it.`,
    );
    return false;
  }
  sendWithKey(input.headers, next.apiKey);
  input.trace.keyUsed(next.keyId, next.label);
  return true;
}

/**
 * An error answer's body as text, up to `limitBytes`, the key masked. One that breaks off (the idle
 * timeout, a cut, our own abort) gives what came: its status already says what failed, and a throw
 * here ended the request as Airlock's own unexpected failure, with no row class. The key is masked
 * before the cut, over enough bytes past it to hold the longest escaped form: cut first, a key
 * across the cut kept its start, which no mask of the whole key matches any more.
 */
async function readCappedMasked(body: UpstreamBody, limitBytes: number, keyMasker: KeyMasker): Promise<string> {
  const readBytesWanted = limitBytes + keyMasker.longestEscapedChars;
  const kept: Buffer[] = [];
  let readBytes = 0;
  const keep = (chunk: Buffer): void => {
    if (readBytes < readBytesWanted) kept.push(chunk);
    readBytes += chunk.length;
  };
  await readBody(body, { keepBytes: 0, maxBytes: ERROR_BODY_READ_MAX_BYTES, onChunk: keep }).catch(() => undefined);
  const masked = keyMasker.maskText(answerText(Buffer.concat(kept).subarray(0, readBytesWanted)));
  return Buffer.byteLength(masked) <= limitBytes ? masked : Buffer.from(masked).subarray(0, limitBytes).toString('utf8');
}

/** Why a resend was not sent: a cap it would cross, or one that cannot be checked (raising it would change nothing). */
function resendRefusedNote(refusal: LocalRefusal): string {
  const cap = refusal.headers?.[BUDGET_HEADER] ?? 'a';
  if (refusal.errorClass === 'budget_exceeded') {
    return (
      `Not resent: another run would cross the ${cap} budget cap, and the gateway may bill each run it had at its input. ` +
      'Raise the cap, or send the request again yourself.'
    );
  }
  // A cap that cannot be checked (the log lost spend): its refusal says which and why, and raising it would change nothing.
  const why = refusal.message.startsWith(REFUSED_LOCALLY) ? refusal.message.slice(REFUSED_LOCALLY.length) : refusal.message;
  return `Not resent: ${why} The gateway may bill each run it had at its input; send the request again yourself once the cap can be checked.`;
}
