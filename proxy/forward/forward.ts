import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ClientProtocol } from '../contracts/usage.ts';
import { toUpstreamPath } from './clientPath.ts';
import { routeFor } from '../protocols/registry.ts';
import type { RequestEvents } from '../contracts/requestEvents.ts';
import { pickAllowedHeaders } from '../core/headerAllowlist.ts';
import { MAX_JSON_NESTING_DEPTH, PARSE_ON_LOOP_MAX_BYTES, PARSE_ON_LOOP_MAX_STRUCTURAL_MARKS } from '../contracts/defaults.ts';
import { accountFor, estimateInputTokens, quickInputEstimate, streamProgressEstimate } from './accounting.ts';
import { runExchange } from './exchange.ts';
import { claimIdempotency, sendReplay, settleIdempotency } from './idempotency.ts';
import type { IdempotencyCache, StoredResponse } from '../spend/idempotencyCache.ts';
import { KeyMasker } from '../core/keyMasker.ts';
import { buildPlan, type NativeProtocolCheck, type PlanRefusal } from './planner.ts';
import { sendRefusal } from './replies.ts';
import { BodyTooLargeError, modelOf, parseClientBody, readClientBody, streamFlagOf, type ClientBody } from './requestBody.ts';
import {
  isLocalRefusal,
  type ClientAuthenticator,
  type LocalRefusal,
  type SpendCheckInput,
  type SpendGate,
  type TargetResolver,
} from '../contracts/ports.ts';
import type { ExchangePlan } from './plan.ts';
import { STOPPED, untilStopped, type ForwardShutdown } from './shutdown.ts';
import type { TranslationThread } from './translation/translationThreadClient.ts';
import type { Profile } from '../contracts/profile.ts';
import { RequestTrace } from './trace.ts';

export interface PipelineServices {
  authenticator: ClientAuthenticator;
  targets: TargetResolver;
  spendGate?: SpendGate;
}

export interface ForwardOptions {
  services: PipelineServices;
  events: RequestEvents;
  isPaused: () => boolean;
  captureLimitBytes: number;
  inFlight: Set<ServerResponse>;
  nativeVerified?: NativeProtocolCheck;
  idempotency?: IdempotencyCache;
  /** Ends the exchanges still running when the proxy stops, and tells when their rows are out. */
  shutdown: ForwardShutdown;
  translation?: TranslationThread;
}

const PAUSED: LocalRefusal = {
  status: 503,
  errorClass: 'proxy_paused',
  message: 'Airlock is paused, so nothing is sent to the gateway. Resume it from the tray or the window (status bar), then retry.',
  headers: { 'retry-after': '5' },
};

const STOPPING: LocalRefusal = {
  status: 503,
  errorClass: 'proxy_stopping',
  message: 'Airlock is stopping, so this request was not sent to the gateway. Retry once Airlock runs again.',
  headers: { 'retry-after': '5' },
};

/** A request before its exchange: the stop ends it at once (`signal`), and `exchangeStarts` hands it to the exchange's own. */
interface StopBeforeExchange {
  signal: AbortSignal;
  exchangeStarts(): void;
}

function protocolOfPath(path: string, method: string): ClientProtocol {
  return routeFor(path, method).adapter.name;
}

/** The proxy's one route: every client request that is not for the window comes through here. */
export function createForwardHandler(options: ForwardOptions): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const forward = createForwarding(options);
  const { shutdown } = options;
  return async (req, res) => {
    shutdown.enter();
    const stopping = new AbortController();
    const onStop = (): void => stopping.abort();
    const exchangeStarts = (): void => shutdown.unwatch(onStop);
    shutdown.watch(onStop);
    try {
      await forward(req, res, { signal: stopping.signal, exchangeStarts });
    } finally {
      exchangeStarts();
      shutdown.leave();
    }
  };
}

function createForwarding(options: ForwardOptions): (req: IncomingMessage, res: ServerResponse, stop: StopBeforeExchange) => Promise<void> {
  const { services, events } = options;
  return async (req, res, stop) => {
    const trace = new RequestTrace(events, options.captureLimitBytes);
    res.setHeader('x-airlock-request-id', trace.requestId);
    options.inFlight.add(res);
    res.once('close', () => options.inFlight.delete(res));
    const { path, query } = toUpstreamPath(req.url ?? '/');
    const method = req.method ?? 'GET';
    const protocol = protocolOfPath(path, method);
    const startFor = (details: {
      profileId: string | null;
      clientName: string | null;
      requestedModel?: string | null;
      upstreamModel?: string | null;
      stream?: boolean;
      mode?: 'native' | 'translate';
      notes?: string[];
      upstreamPath?: string;
    }): void =>
      trace.start({
        method,
        clientPath: req.url ?? '/',
        upstreamPath: details.upstreamPath ?? path,
        profileId: details.profileId,
        clientName: details.clientName,
        protocol,
        protocolMode: details.mode ?? 'native',
        requestedModel: details.requestedModel ?? null,
        upstreamModel: details.upstreamModel ?? null,
        stream: details.stream ?? false,
        notes: details.notes ?? [],
      });
    const refuse = (refusal: LocalRefusal): void => {
      if (!trace.started) startFor({ profileId: null, clientName: null });
      trace.fail(refusal.errorClass, refusal.message);
      sendRefusal(res, protocol, refusal);
      trace.end(refusal.status, { usage: null, usageSource: null, costCredits: null });
    };

    if (options.isPaused()) return refuse(PAUSED);
    const identity = services.authenticator.authenticate(req.headers);
    if (isLocalRefusal(identity)) return refuse(identity);
    const target = services.targets.resolve(identity);
    if (isLocalRefusal(target)) return refuse(target);

    let body: ClientBody;
    try {
      body = await readClientBody(req, res, {
        limitBytes: bodyLimitBytes(target.profile),
        maxJsonDepth: MAX_JSON_NESTING_DEPTH,
        signal: stop.signal,
      });
    } catch (error) {
      startFor({ profileId: target.profile.id, clientName: identity.tokenName });
      if (error instanceof BodyTooLargeError) return refuse(bodyTooLarge(error, target.profile));
      if (stop.signal.aborted) return refuse(STOPPING);
      trace.fail('client_aborted', 'the client closed the connection while sending its request');
      trace.end(499, { usage: null, usageSource: null, costCredits: null });
      return;
    }
    const parsed = parseClientBody(body, req.headers['content-type'], {
      maxBytes: PARSE_ON_LOOP_MAX_BYTES,
      maxStructuralMarks: PARSE_ON_LOOP_MAX_STRUCTURAL_MARKS,
      maxDepth: MAX_JSON_NESTING_DEPTH,
    });
    const requested = { requestedModel: modelOf(parsed), stream: streamFlagOf(parsed) };
    const seams = {
      ...(options.nativeVerified ? { nativeVerified: options.nativeVerified } : {}),
      ...(options.translation ? { translation: options.translation } : {}),
    };
    const plan = await untilStopped(
      Promise.resolve(buildPlan({ method, path, query, protocol, body, parsed, identity, target, ...seams })),
      stop.signal,
    );
    if (plan === STOPPED) {
      startFor({ profileId: target.profile.id, clientName: identity.tokenName, ...requested });
      return refuse(STOPPING);
    }
    if ('refusal' in plan) {
      startFor({ profileId: target.profile.id, clientName: identity.tokenName, ...requested });
      return refuse((plan as PlanRefusal).refusal);
    }
    startFor({
      profileId: target.profile.id,
      clientName: identity.tokenName,
      requestedModel: plan.requestedModel,
      upstreamModel: plan.upstreamModel,
      stream: plan.stream,
      mode: plan.mode,
      notes: plan.notes,
      upstreamPath: plan.upstreamPath,
    });
    for (const chunk of body.chunks) trace.requestBody.add(chunk);
    trace.requestHeaders = pickAllowedHeaders(req.headers);

    if (plan.localAnswer) {
      const answer = await untilStopped(plan.localAnswer, stop.signal);
      if (answer === STOPPED) return refuse(STOPPING);
      sendLocalAnswer(res, answer);
      trace.end(200, { usage: null, usageSource: null, costCredits: null });
      return;
    }
    // A repeat answered from its first answer costs nothing, so it is settled before any budget.
    const claim = await claimIdempotency(options.idempotency, req, res, plan.upstreamPath, {
      profileId: target.profile.id,
      requestId: trace.requestId,
      maxWaitMs: target.profile.timeouts.totalTimeoutMs,
      stopping: stop.signal,
    });
    if (claim?.kind === 'refused') return refuse(stop.signal.aborted ? STOPPING : claim.refusal);
    if (claim?.kind === 'replay') {
      sendReplay(res, withoutKey(claim.response, KeyMasker.for(target.apiKey)));
      trace.end(claim.response.status, { usage: null, usageSource: null, costCredits: null });
      return;
    }
    const gateRefusal = await checkSpend(
      services.spendGate,
      {
        requestId: trace.requestId,
        identity,
        profile: target.profile,
        method,
        upstreamPath: plan.upstreamPath,
        upstreamModel: plan.upstreamModel,
      },
      plan,
      stop.signal,
    );
    if (gateRefusal) {
      claim?.ticket.abandon();
      return refuse(gateRefusal);
    }

    if (plan.stream && plan.upstreamModel !== null) trace.estimateProgressWith(streamProgressEstimate(plan, target.profile));
    stop.exchangeStarts();
    try {
      await runExchange({ req, res, plan, target, trace, runsOnWithoutClient: claim?.kind === 'first', shutdown: options.shutdown });
    } finally {
      if (claim?.kind === 'first') settleIdempotency(claim.ticket, trace);
      const accounting = await accountFor(trace, plan, target.profile);
      trace.end(trace.status, accounting);
      services.spendGate?.recordOutcome({
        requestId: trace.requestId,
        identity,
        profileId: target.profile.id,
        status: trace.status,
        costCredits: accounting.costCredits,
        atMs: Date.now(),
      });
    }
  };
}

/**
 * The spend gate's decision. The input is estimated only when a cap applies, and counted with the
 * tokenizer (on its thread, while this request waits) only when its upper bound would not pass the
 * caps. A request admitted on the bound holds the bound against the caps until it ends; where that
 * hold would keep out the next request of the same size, the input is counted in the background
 * and the hold lowered to the count, so parallel requests near a cap are not refused for a bound.
 */
async function checkSpend(
  gate: SpendGate | undefined,
  input: Omit<SpendCheckInput, 'estimatedInputTokens'>,
  plan: ExchangePlan,
  stopping: AbortSignal,
): Promise<LocalRefusal | null> {
  if (!gate) return null;
  if (!gate.needsInputEstimate(input.identity, input.profile)) return gate.check({ ...input, estimatedInputTokens: null });
  const quick = quickInputEstimate(plan);
  const onBound = { ...input, estimatedInputTokens: quick.tokens };
  if (!quick.countRefines) return gate.check(onBound);
  if (!gate.budgetsAdmit(onBound)) {
    // Checked only if the count arrives before the stop: a request ended by it holds nothing.
    const counted = await untilStopped(estimateInputTokens(plan), stopping);
    return counted === STOPPED ? STOPPING : gate.check({ ...input, estimatedInputTokens: counted });
  }
  const refusal = gate.check(onBound);
  if (refusal === null && !gate.budgetsAdmit(onBound)) {
    // The estimator falls back to bytes rather than fail; a failure here would only leave the bound held.
    void estimateInputTokens(plan).then(
      (tokens) => gate.refineHold({ ...input, estimatedInputTokens: tokens }),
      () => undefined,
    );
  }
  return refusal;
}

/** A replay is what the first client received: the key masked as the relay masked it. */
function withoutKey(response: StoredResponse, keyMasker: KeyMasker): StoredResponse {
  const headers: Record<string, string | string[]> = { ...response.headers };
  keyMasker.maskHeaderValues(headers);
  return { ...response, headers: headers as Record<string, string>, body: keyMasker.maskBytes(response.body) };
}

const MIB = 1024 * 1024;

function bodyLimitBytes(profile: Profile): number {
  return profile.maxRequestBodyMiB * MIB;
}

/** A 413 that names the limit and the three places to raise it. */
function bodyTooLarge(error: BodyTooLargeError, profile: Profile): LocalRefusal {
  const limit = `${profile.maxRequestBodyMiB} MiB`;
  const what =
    error.declaredBytes === null
      ? `The request body passed ${limit}, the request body limit of profile "${profile.id}", so Airlock stopped reading it`
      : `The request body is ${(error.declaredBytes / MIB).toFixed(1)} MiB, more than ${limit}, the request body limit of profile "${profile.id}", so Airlock did not read it`;
  return {
    status: 413,
    errorClass: 'request_too_large',
    message:
      `${what} and sent nothing to the gateway. Send a smaller request, or raise the limit: in the Airlock window (Profiles, ` +
      `Request body limit), with \`airlock profile set ${profile.id} --max-body-mib <MiB>\`, or as maxRequestBodyMiB in airlock.json.`,
  };
}

function sendLocalAnswer(res: ServerResponse, answer: object): void {
  const payload = JSON.stringify(answer);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
  res.end(payload);
}
