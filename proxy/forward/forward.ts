import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ClientAuthenticator, LocalRefusal, SpendGate, TargetResolver } from '../contracts/ports.ts';
import type { ClientProtocol } from '../contracts/usage.ts';
import { sendRefusal } from './replies.ts';
import type { IdempotencyCache } from '../spend/idempotencyCache.ts';
import { admit, type AdmitServices } from './admit.ts';
import { toUpstreamPath } from '../core/clientPath.ts';
import { routeFor } from '../protocols/registry.ts';
import { exchange } from './exchange.ts';
import { fallbackRoute, type ExchangeStep, type FallbackServices } from './fallbackRoute.ts';
import { gate, type GateServices } from './gate.ts';
import { beginTrace, plan, type PlanSeams } from './planRequest.ts';
import type { ModelRefusalsCheck, NativeProtocolCheck } from './planner.ts';
import { MaxTokensRefusals } from './maxTokensRefusals.ts';
import { ReasoningEffortRefusals } from './reasoningEffortRefusals.ts';
import type { LearnedRefusals } from './requestFixes.ts';
import { settle } from './settle.ts';
import type { ForwardShutdown } from './shutdown.ts';
import { ANSWERED, isRefused, type ForwardRequest, type Refused, type StopBeforeExchange } from './stageRecords.ts';
import { RequestTrace } from './trace.ts';
import type { TranslationThread } from './translation/translationThreadClient.ts';
import type { RequestEvents } from '../contracts/requestEvents.ts';
import type { NamedCommand } from '../contracts/cli.ts';

export interface PipelineServices {
  authenticator: ClientAuthenticator;
  targets: TargetResolver;
  spendGate?: SpendGate;
}

export interface ForwardOptions {
  services: PipelineServices;
  events: RequestEvents;
  /** The refusal while Airlock is paused or stopping, null while it forwards. */
  standingRefusal: () => LocalRefusal | null;
  /** Read per request: a setting the user may change while the proxy runs. */
  captureLimitBytes: () => number;
  inFlight: Set<ServerResponse>;
  nativeVerified?: NativeProtocolCheck;
  idempotency?: IdempotencyCache;
  /** Ends the exchanges still running when the proxy stops, and tells when their rows are out. */
  shutdown: ForwardShutdown;
  translation?: TranslationThread;
  /** The `reasoning_effort` refusals learned, kept across restarts by the app; unless given, for this proxy's life only. */
  reasoningEffortRefusals?: ReasoningEffortRefusals;
  /** The `max_tokens` refusals learned, kept across restarts by the app; unless given, for this proxy's life only. */
  maxTokensRefusals?: MaxTokensRefusals;
  /** How a refusal names this Airlock in the command it suggests (its --data-dir); the plain command unless given. */
  command?: NamedCommand;
}

interface StageServices {
  options: ForwardOptions;
  admit: AdmitServices;
  plan: PlanSeams;
  learnedRefusals: LearnedRefusals;
  gate: GateServices;
  fallback: FallbackServices;
}

function protocolOfPath(path: string, method: string): ClientProtocol {
  return routeFor(path, method).adapter.name;
}

/** The proxy's one route: every client request that is not for the window comes through here. */
export function createForwardHandler(options: ForwardOptions): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const { shutdown, services } = options;
  const { spendGate } = services;
  const reasoningEfforts = options.reasoningEffortRefusals ?? new ReasoningEffortRefusals();
  const maxTokens = options.maxTokensRefusals ?? new MaxTokensRefusals();
  const modelRefusals: ModelRefusalsCheck = (profile, model) => ({
    refusedReasoningEfforts: reasoningEfforts.refused(profile, model),
    maxTokensRefused: maxTokens.refuses(profile, model),
  });
  // What each stage is given, made once rather than spread anew for every request.
  const stages: StageServices = {
    options,
    admit: { ...services, standingRefusal: options.standingRefusal },
    plan: {
      modelRefusals,
      ...(options.nativeVerified ? { nativeVerified: options.nativeVerified } : {}),
      ...(options.translation ? { translation: options.translation } : {}),
      ...(options.command ? { command: options.command } : {}),
      ...(spendGate ? { needsInputEstimate: (identity, profile) => spendGate.needsInputEstimate(identity, profile) } : {}),
    },
    learnedRefusals: { reasoningEfforts, maxTokens },
    gate: {
      ...(services.spendGate ? { spendGate: services.spendGate } : {}),
      ...(options.idempotency ? { idempotency: options.idempotency } : {}),
    },
    fallback: {
      targets: services.targets,
      ...(services.spendGate ? { spendGate: services.spendGate } : {}),
      ...(options.nativeVerified ? { nativeVerified: options.nativeVerified } : {}),
      ...(options.translation ? { translation: options.translation } : {}),
      modelRefusals,
    },
  };
  return async (req, res) => {
    shutdown.enter();
    const stop = shutdown.beforeExchange();
    try {
      await forward(openRequest(req, res, stop, options), stages);
    } finally {
      stop.exchangeStarts();
      shutdown.leave();
    }
  };
}

function openRequest(req: IncomingMessage, res: ServerResponse, stop: StopBeforeExchange, options: ForwardOptions): ForwardRequest {
  const trace = new RequestTrace(options.events, options.captureLimitBytes());
  options.inFlight.add(res);
  // An answer closes once: `on` spares once's wrapper.
  res.on('close', () => options.inFlight.delete(res));
  const { path, query, model } = toUpstreamPath(req.url ?? '/');
  const method = req.method ?? 'GET';
  return { req, res, trace, method, path, query, pathModel: model ?? null, protocol: protocolOfPath(path, method), stop };
}

/** admit → plan → gate → exchange → settle: each stage refuses, answers itself, or hands on its record. */
async function forward(request: ForwardRequest, stages: StageServices): Promise<void> {
  const { options } = stages;
  const admitted = admit(request, stages.admit);
  if (isRefused(admitted)) return refuse(request, admitted);
  const planned = await plan(admitted, stages.plan);
  if (planned === ANSWERED) return;
  if (isRefused(planned)) return refuse(request, planned);
  const gating = gate(planned, stages.gate);
  const gated = gating instanceof Promise ? await gating : gating;
  if (gated === ANSWERED) return;
  if (isRefused(gated)) return refuse(request, gated);
  request.stop.exchangeStarts();
  let answered: ExchangeStep = gated;
  try {
    answered = await exchange({
      req: gated.req,
      res: gated.res,
      plan: gated.plan,
      target: gated.target,
      trace: gated.trace,
      runsOnWithoutClient: gated.firstOfKey !== null,
      shutdown: options.shutdown,
      fallback: fallbackRoute(gated, stages.fallback),
      spendGate: options.services.spendGate,
      requester: gated,
      learnedRefusals: stages.learnedRefusals,
    });
  } finally {
    const settling = settle(gated, answered, options.services.spendGate);
    if (settling) await settling;
  }
}

/** Answers a refusal in the client's protocol (replies.ts sendRefusal) and ends its row. */
function refuse(request: ForwardRequest, refused: Refused): void {
  const { trace, res, protocol } = request;
  const { refusal } = refused;
  if (refused.unlogged) {
    sendRefusal(res, protocol, refusal);
    return;
  }
  if (!trace.started) beginTrace(request, refused.known);
  trace.failed(refusal.errorClass, refusal.message);
  const status = sendRefusal(res, protocol, refusal);
  trace.ended(status, { usage: null, usageSource: null, costCredits: null });
}
