import { MAX_JSON_NESTING_DEPTH } from '../contracts/defaults.ts';
import { pickAllowedHeaders } from '../core/headerAllowlist.ts';
import { KeyMasker } from '../core/keyMasker.ts';
import { STOPPED, untilStopped } from './shutdown.ts';
import type { ExchangePlan } from './plan.ts';
import { buildPlan, type NativeProtocolCheck, type PlanInput, type ModelRefusalsCheck } from './planner.ts';
import { bodyLimitBytes, bodyTooLarge, STOPPING, undecodableBody } from './ownRefusals.ts';
import {
  BodyDecodingError,
  BodyTooLargeError,
  modelOf,
  parseClientBodyOnLoop,
  readClientBody,
  streamFlagOf,
  type ClientBody,
} from './requestBody.ts';
import { ANSWERED, secretsOf, type Admitted, type Planned, type Refused } from './stageRecords.ts';
import type { TranslationThread } from './translation/translationThreadClient.ts';
import { UploadTimedOutError } from './uploadStall.ts';
import { PLAIN_HINT, type NamedCommand } from '../contracts/cli.ts';
import { arrivingPlan, mayForwardEarly, plannedSoFar } from './earlyForward.ts';
import { setOwnHeader, writeAnswerHead } from './answerHead.ts';

export interface PlanSeams {
  nativeVerified?: NativeProtocolCheck;
  modelRefusals?: ModelRefusalsCheck;
  translation?: TranslationThread;
  needsInputEstimate?: PlanInput['needsInputEstimate'];
  /** How the body limit's refusal names this Airlock's `profile set` (its --data-dir). */
  command?: NamedCommand;
}

const NO_ACCOUNTING = { usage: null, usageSource: null, costCredits: null } as const;

/**
 * The plan stage: reads the body (up to the profile's limit), then decides path, model, body bytes
 * and translation (planner.ts). The request's row starts here, once what it asks for is known. A
 * request Airlock answers itself (Anthropic `count_tokens`) ends here.
 */
export async function plan(admitted: Admitted, seams: PlanSeams): Promise<Planned | Refused | typeof ANSWERED> {
  const { req, res, trace, target, identity, stop } = admitted;
  const who = {
    profileId: target.profile.id,
    clientName: identity.tokenName,
    ...(identity.replayOf ? { replayOf: identity.replayOf } : {}),
  };
  let body: ClientBody;
  try {
    body = await readClientBody(req, res, {
      limitBytes: bodyLimitBytes(target.profile),
      maxJsonDepth: MAX_JSON_NESTING_DEPTH,
      signal: stop.signal,
      sendsEarly: (sofar) => mayForwardEarly(admitted, seams.needsInputEstimate, sofar),
    });
  } catch (error) {
    if (error instanceof BodyTooLargeError)
      return { refusal: bodyTooLarge(error, target.profile, seams.command ?? PLAIN_HINT.command), known: who };
    if (error instanceof BodyDecodingError) return { refusal: undecodableBody(error), known: who };
    if (stop.signal.aborted) return { refusal: STOPPING, known: who };
    if (error instanceof UploadTimedOutError) return { refusal: error.refusal(false), known: who };
    beginTrace(admitted, who);
    trace.failed('client_aborted', 'the client closed the connection while sending its request');
    trace.ended(499, NO_ACCOUNTING);
    return ANSWERED;
  }
  const { arriving } = body;
  // A body still arriving is planned from its first bytes (earlyForward.ts); buildPlan then decides at once.
  const sofar = arriving ? plannedSoFar(body) : null;
  const parsed = sofar?.parsed ?? parseClientBodyOnLoop(body, req.headers['content-type']);
  const built = buildPlan({
    method: admitted.method,
    path: admitted.path,
    query: admitted.query,
    pathModel: admitted.pathModel,
    protocol: admitted.protocol,
    body: sofar?.body ?? body,
    parsed,
    contentType: req.headers['content-type'],
    identity,
    target,
    nativeVerified: seams.nativeVerified,
    modelRefusals: seams.modelRefusals,
    translation: seams.translation,
    needsInputEstimate: seams.needsInputEstimate,
  });
  // Only a plan that waits (a translation on its thread) needs to listen for the stop meanwhile.
  const planned = built instanceof Promise ? await untilStopped(built, stop.signal) : stop.signal.aborted ? STOPPED : built;
  if (planned === STOPPED || 'refusal' in planned) {
    const known = { ...who, requestedModel: admitted.pathModel ?? modelOf(parsed), stream: streamFlagOf(parsed) };
    // The body was read whole and refused for what it holds (not JSON, no object, a field Airlock will not
    // drop): the row keeps it, masked, so its detail shows what was refused. A body still arriving was
    // refused on its first bytes only, and its row keeps none rather than a part taken for the whole.
    if (!arriving) trace.requestReceived(pickAllowedHeaders(req.headers), body.chunks, KeyMasker.forKeys(secretsOf(target)));
    return { refusal: planned === STOPPED ? STOPPING : planned.refusal, known };
  }
  // Only a count answered here carries `localAnswer`, and it is never sent: the plan is handed on as it is, not copied.
  const { localAnswer, clientChunks } = planned;
  // The client's bytes become views of the one buffer sent: they are kept (retry, fallback, log) as long as the exchange runs.
  // A body still arriving keeps its reads: the read goes on appending to them.
  if (clientChunks !== undefined && sofar === null) body.chunks = clientChunks;
  const exchangePlan: ExchangePlan = arriving && sofar ? arrivingPlan(planned, sofar, arriving) : planned;
  beginTrace(admitted, {
    ...who,
    requestedModel: exchangePlan.requestedModel,
    upstreamModel: exchangePlan.upstreamModel,
    stream: exchangePlan.stream,
    protocolMode: exchangePlan.mode,
    notes: exchangePlan.notes,
    upstreamPath: exchangePlan.upstreamPath,
  });
  trace.requestReceived(pickAllowedHeaders(req.headers), body.chunks, KeyMasker.forKeys(secretsOf(target)));
  if (arriving) trace.requestBodyArriving(arriving);
  if (!localAnswer) {
    // Its bytes only: a parsed request held for a whole stream costs about its size again, and each step parses it anew.
    return { ...admitted, plan: exchangePlan, clientBody: target.profile.fallbacks.length > 0 ? body : null };
  }
  const answer = await untilStopped(localAnswer, stop.signal);
  if (answer === STOPPED) return { refusal: STOPPING };
  const payload = JSON.stringify(answer);
  writeAnswerHead(res, 200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
  res.end(payload);
  trace.ended(200, NO_ACCOUNTING);
  return ANSWERED;
}

/**
 * Starts the request's row with what is known of it so far, and puts its id on the answer: only a
 * reply whose row began carries one (a WebSocket handshake's 426, a token-less HEAD's 401 and a
 * failure before the row would name no row), so the id a user quotes always leads to a row.
 */
export function beginTrace(
  request: Pick<Admitted, 'req' | 'res' | 'trace' | 'method' | 'path' | 'protocol'>,
  known: Refused['known'] = {},
): void {
  setOwnHeader(request.res, 'x-airlock-request-id', request.trace.requestId);
  request.trace.begin({
    method: request.method,
    clientPath: request.req.url ?? '/',
    upstreamPath: known.upstreamPath ?? request.path,
    profileId: known.profileId ?? null,
    clientName: known.clientName ?? null,
    protocol: request.protocol,
    protocolMode: known.protocolMode ?? 'native',
    requestedModel: known.requestedModel ?? null,
    upstreamModel: known.upstreamModel ?? null,
    stream: known.stream ?? false,
    notes: known.notes ?? [],
    ...(known.replayOf ? { replayOf: known.replayOf } : {}),
  });
}
