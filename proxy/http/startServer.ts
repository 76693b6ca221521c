import type { ServerResponse } from 'node:http';
import { createServer } from '../core/nodeHttp.ts';
import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler, type Router } from 'express';
import { createRequestGuards } from './requestGuards.ts';
import { RequestEvents } from '../contracts/requestEvents.ts';
import { createForwardHandler, type PipelineServices } from '../forward/forward.ts';
import type { IdempotencyCache } from '../spend/idempotencyCache.ts';
import type { NativeProtocolCheck } from '../forward/planner.ts';
import type { ReasoningEffortRefusals } from '../forward/reasoningEffortRefusals.ts';
import type { MaxTokensRefusals } from '../forward/maxTokensRefusals.ts';
import { ForwardShutdown, type StopReport } from '../forward/shutdown.ts';
import { TranslationThread } from '../forward/translation/translationThreadClient.ts';
import { closeUpstreamAgents } from '../forward/upstreamAgents.ts';
import { CAPTURE_LIMIT_BYTES, CONTROL_PREFIX, DEFAULT_HOST } from '../contracts/defaults.ts';
import { answerUnexpectedError, createRequestDispatch, sayUnexpectedErrorOnStderr } from './requestDispatch.ts';
import { busySinceLastCheck, InFlightRequests, startForwardingReclaimer } from './forwardingReclaimer.ts';
import { answerClientError } from './clientErrors.ts';
import { listenOnIpv6Loopback } from './ipv6Loopback.ts';
import { keepListening, type ListenerFaults } from './listenerFaults.ts';
import { listenFailure } from './listenRefusal.ts';
import { DESKTOP_RESUME_WAY, pausedRefusal, STOPPING } from '../forward/ownRefusals.ts';
import type { CommandHint } from '../contracts/cli.ts';
import type { SpendGate } from '../contracts/ports.ts';

export interface ServerOptions {
  host?: string;
  port: number;
  services: PipelineServices;
  events?: RequestEvents;
  controlRouter?: Router;
  /** What the log keeps of each body, read per request (the `bodyCaptureKiB` setting); CAPTURE_LIMIT_BYTES unless given. */
  captureLimitBytes?: () => number;
  /** From the capability check: where the gateway speaks Anthropic or Responses natively. */
  nativeVerified?: NativeProtocolCheck;
  /** Answers repeated image/video creations carrying the same idempotency key. */
  idempotency?: IdempotencyCache;
  /** Where heavy Messages and Responses bodies are translated; unless given, a thread of the proxy's own, stopped with it. */
  translation?: TranslationThread;
  /** The `reasoning_effort` refusals learned, as kept in the data directory; unless given, for this proxy's life only. */
  reasoningEffortRefusals?: ReasoningEffortRefusals;
  /** The `max_tokens` refusals learned, as kept in the data directory; unless given, for this proxy's life only. */
  maxTokensRefusals?: MaxTokensRefusals;
  /** How the user resumes this Airlock when paused, given the port it listens on; the desktop app's tray and window unless given. */
  resumeWay?: (hint: CommandHint) => string;
  /** How the proxy's own refusals name this Airlock in a command they suggest (required: a plain default would name another Airlock). */
  commandHint: CommandHint;
  /** Where a handler's unexpected error is said (startAirlock: the notices, and stderr); stderr unless given. */
  reportUnexpectedError?: (message: string) => void;
  /** How long a client has to send its whole request, from its start (REQUEST_TIMEOUT_MS unless given; tests lower it). */
  requestTimeoutMs?: number;
  /** Where a listener that stops taking connections, and takes them again, is said (startAirlock: the notices); stderr unless given. */
  listenerFaults?: ListenerFaults;
  /** How long after a listener's failure it listens again (RELISTEN_DELAY_MS unless given; tests lower it). */
  relistenDelayMs?: number;
}

export interface ProxyHandle {
  host: string;
  port: number;
  url: string;
  /** Another program holds [::1] at this port: a tool pointed at localhost may reach it rather than Airlock (ipv6Loopback.ts). */
  ipv6LoopbackTaken: boolean;
  events: RequestEvents;
  setPaused(paused: boolean): void;
  isPaused(): boolean;
  inFlightCount(): number;
  stop(options?: { drainMs?: number }): Promise<StopReport>;
}

/** Keep idle client connections longer than SDK connection pools do, so a reused socket is never half-closed. */
const CLIENT_KEEP_ALIVE_MS = 75_000;
/**
 * After the drain, how long a stop waits for the requests it ended to finish their accounting (a
 * stream without reported usage is counted by the tokenizer) and hand their rows to the log.
 */
const SETTLE_ON_STOP_MS = 10_000;
/**
 * The least a stop waits for clients to take the rest of their answers (the error event of a
 * stream it ended, the end of one that finished) when the drain left less: a client that reads at
 * all takes it in far less, one that does not is cut after it.
 */
const MIN_FLUSH_ON_STOP_MS = 1_000;
/**
 * How long a client has to send its whole request, headers and body, from its start: Node's own
 * default `requestTimeout`, named so tests can lower it. Node checks it every
 * `connectionsCheckingInterval` (30 s by default), set here to a tenth of it so that a lowered
 * limit is met on time too.
 */
export const REQUEST_TIMEOUT_MS = 300_000;

export async function startServer(options: ServerOptions): Promise<ProxyHandle> {
  const host = options.host ?? DEFAULT_HOST;
  const events = options.events ?? new RequestEvents();
  const stopCountingRunningSpend = countRunningSpend(events, options.services.spendGate);
  const inFlight = new InFlightRequests();
  const shutdown = new ForwardShutdown();
  let paused = false;
  let stopping = false;
  let port = options.port;
  const translation = options.translation ?? new TranslationThread();
  const reclaimer = startForwardingReclaimer(busySinceLastCheck(inFlight));

  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.use(createRequestGuards({ port: () => port }));
  app.head('/', (_req, res) => {
    res.status(200).end();
  });
  app.get('/', (req, res) => {
    if (options.controlRouter && req.accepts(['json', 'html']) === 'html') {
      res.redirect(302, `${CONTROL_PREFIX}/`);
      return;
    }
    res.json({ service: 'airlock', status: paused ? 'paused' : 'ok', openaiBaseUrl: `http://127.0.0.1:${port}/v1` });
  });
  // Browsers ask for it on their own; it is no gateway path and must not be forwarded or logged.
  app.get('/favicon.ico', (_req, res) => {
    res.status(204).end();
  });
  if (options.controlRouter) app.use(CONTROL_PREFIX, options.controlRouter);
  const forward = createForwardHandler({
    services: options.services,
    events,
    standingRefusal: () => {
      if (stopping) return STOPPING;
      return paused ? pausedRefusal(options.resumeWay?.(options.commandHint) ?? DESKTOP_RESUME_WAY) : null;
    },
    captureLimitBytes: options.captureLimitBytes ?? (() => CAPTURE_LIMIT_BYTES),
    inFlight,
    shutdown,
    ...(options.nativeVerified ? { nativeVerified: options.nativeVerified } : {}),
    ...(options.idempotency ? { idempotency: options.idempotency } : {}),
    ...(options.reasoningEffortRefusals ? { reasoningEffortRefusals: options.reasoningEffortRefusals } : {}),
    ...(options.maxTokensRefusals ? { maxTokensRefusals: options.maxTokensRefusals } : {}),
    command: options.commandHint.command,
    translation,
  });
  app.use(forward);
  const reportUnexpectedError = options.reportUnexpectedError ?? sayUnexpectedErrorOnStderr;
  const lastResort: ErrorRequestHandler = (error: unknown, _req, res, _next) => answerUnexpectedError(error, res, reportUnexpectedError);
  app.use(lastResort);
  const dispatch = createRequestDispatch({ app, forward, port: () => port, reportUnexpectedError });

  // requireHostHeader off: a request without Host must reach the guard and get its 403, not Node's bare 400.
  const requestTimeoutMs = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const server = createServer(
    {
      keepAliveTimeout: CLIENT_KEEP_ALIVE_MS,
      noDelay: true,
      requireHostHeader: false,
      requestTimeout: requestTimeoutMs,
      connectionsCheckingInterval: requestTimeoutMs / 10,
    },
    dispatch,
  );
  // Expect: 100-continue is answered by the dispatch, so a body that will be refused is never sent.
  server.on('checkContinue', dispatch);
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => answerClientError(error, socket, requestTimeoutMs));
  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      reject(listenFailure(error, options.port, host));
    };
    server.once('error', onError);
    server.listen(options.port, host, () => {
      server.off('error', onError);
      port = (server.address() as AddressInfo).port;
      resolve();
    });
  });
  const listenerFaults = options.listenerFaults ?? LISTENER_FAULTS_ON_STDERR;
  const kept = keepListening(server, { port, host, name: `${host}:${port}` }, listenerFaults, options.relistenDelayMs);
  // Only beside the default address: a host the caller chose is the one it asked for.
  const ipv6Loopback =
    host === DEFAULT_HOST
      ? await listenOnIpv6Loopback(server, port, listenerFaults, options.relistenDelayMs)
      : { listener: null, kept: null, takenByAnother: false };

  return {
    host,
    port,
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    ipv6LoopbackTaken: ipv6Loopback.takenByAnother,
    events,
    setPaused: (value) => {
      paused = value;
    },
    isPaused: () => paused,
    inFlightCount: () => inFlight.size,
    /**
     * Lets requests in flight finish for up to `drainMs`, then ends those still running (a stream
     * gets its protocol's error event) and waits until every request has ended, so each one's row
     * reaches the log before the caller closes it. Then waits, until the drain's end (at least
     * MIN_FLUSH_ON_STOP_MS), for clients to take what is left of their answers: a client slow to
     * read at that moment still gets its stream's end; one that takes nothing is cut.
     */
    async stop(stopOptions = {}) {
      const drainMs = stopOptions.drainMs ?? 0;
      const drainEndsAtMs = performance.now() + drainMs;
      // The listener stays open through the drain, and what arrives meanwhile is refused as STOPPING: a
      // closed port reset those clients, which their SDKs reported as a bare "Connection error." Idle
      // connections are closed at once, so a client's next request comes on a new one and gets the refusal.
      stopping = true;
      server.closeIdleConnections();
      await shutdown.idle(drainMs);
      kept.stop();
      ipv6Loopback.kept?.stop();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      ipv6Loopback.listener?.close();
      const report = await shutdown.stopAll(SETTLE_ON_STOP_MS);
      const cutAnswers = await answersTaken(inFlight, Math.max(drainEndsAtMs - performance.now(), MIN_FLUSH_ON_STOP_MS));
      server.closeAllConnections();
      await closed;
      reclaimer.stop();
      stopCountingRunningSpend();
      await closeUpstreamAgents();
      if (translation !== options.translation) await translation.close();
      return { ...report, cutAnswers };
    },
  };
}

const LISTENER_FAULTS_ON_STDERR: ListenerFaults = {
  failing: (message) => console.error(`[airlock] ${message}`),
  recovered: (message) => console.error(`[airlock] ${message}`),
};

/**
 * Hands the spend gate each running request's estimated spend so far (the `progress` its in-flight
 * row gets: at the first send, then about once a second of a stream), for the burst guard's credit rate.
 */
function countRunningSpend(events: RequestEvents, spendGate: SpendGate | undefined): () => void {
  if (spendGate?.spentSoFar === undefined) return () => undefined;
  return events.subscribe((event) => {
    if (event.type === 'progress') spendGate.spentSoFar?.(event.requestId, event);
  });
}

/**
 * Resolves once every answer still being written was taken by its client (a response closes once
 * its last bytes are handed to the socket), or after `maxWaitMs`, with how many were not.
 */
async function answersTaken(answers: ReadonlySet<ServerResponse>, maxWaitMs: number): Promise<number> {
  if (answers.size === 0) return 0;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.all([...answers].map((res) => new Promise((resolve) => res.once('close', resolve)))),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, maxWaitMs);
    }),
  ]);
  clearTimeout(timer);
  return answers.size;
}
