import { profileSchema, type Profile, type ProfileInput } from '../../proxy/contracts/profile.ts';
import { RequestEvents } from '../../proxy/contracts/requestEvents.ts';
import type { RequestLifecycleEvent } from '../../proxy/contracts/lifecycle.ts';
import type { ClientIdentity, SpendGate } from '../../proxy/contracts/ports.ts';
import { startServer, type ProxyHandle } from '../../proxy/http/startServer.ts';
import type { NativeProtocolCheck } from '../../proxy/forward/planner.ts';
import type { IdempotencyCache } from '../../proxy/spend/idempotencyCache.ts';
import type { ListenerFaults } from '../../proxy/http/listenerFaults.ts';
import type { TranslationThread } from '../../proxy/forward/translation/translationThreadClient.ts';
import { startGatewaySimulator, type GatewaySimulator, type SimulatorOptions } from '../simulator/index.ts';
import { chatBody, JSON_HEADERS, rawRequest, type RawResponse } from './http.ts';
import { SENTINEL_KEY } from './sentinel.ts';
import { PLAIN_HINT } from '../../proxy/contracts/cli.ts';

export interface HarnessOptions {
  profile?: Partial<ProfileInput>;
  simulator?: SimulatorOptions;
  spendGate?: SpendGate;
  identity?: ClientIdentity;
  translation?: TranslationThread;
  /** The capability check's answer to "does the gateway speak this protocol natively" (none: never). */
  nativeVerified?: NativeProtocolCheck;
  /** The profile's gateway key (the simulator accepts it); SENTINEL_KEY unless given. */
  apiKey?: string;
  /** What the log keeps of each body (the `bodyCaptureKiB` setting); CAPTURE_LIMIT_BYTES unless given. */
  captureLimitBytes?: number;
  /** The proxy server's requestTimeout (REQUEST_TIMEOUT_MS unless given): lowered to meet it within a test. */
  requestTimeoutMs?: number;
  /** Answers repeated keyed creations from their first (none unless given). */
  idempotency?: IdempotencyCache;
  /** Where a listener's failure and recovery are said (stderr unless given). */
  listenerFaults?: ListenerFaults;
  /** How long after a listener's failure it listens again (RELISTEN_DELAY_MS unless given). */
  relistenDelayMs?: number;
}

export interface Harness {
  proxy: ProxyHandle;
  simulator: GatewaySimulator;
  profile: Profile;
  /** Every lifecycle event published, in order. */
  events: RequestLifecycleEvent[];
  /** Listens to each lifecycle event as it is published (after `events` has it); returns the unsubscribe function. */
  subscribe(listener: (event: RequestLifecycleEvent) => void): () => void;
  /** Resolves with the `end` event of the next request to finish. */
  nextEnd(): Promise<Extract<RequestLifecycleEvent, { type: 'end' }>>;
  /** Sends one chat POST as a plain client (`body`, else a short chat) and resolves with its answer and the request's `end` event. */
  postChat(body?: string): Promise<{ response: RawResponse; end: Extract<RequestLifecycleEvent, { type: 'end' }> }>;
  /**
   * Scripts the gateway's next answer as `text` under `contentType`, sends `request` to `path` as a
   * client that holds the key itself, and resolves with the answer and the request's `end` event.
   */
  postAnswered(
    path: string,
    request: object,
    gatewayAnswer: { text: string; contentType: string },
  ): Promise<{ response: RawResponse; end: Extract<RequestLifecycleEvent, { type: 'end' }> }>;
  close(): Promise<void>;
}

/**
 * A real proxy on a free port in front of a real simulator, wired with a fixed profile and the
 * sentinel key (no profile file, no keychain): the proxy core's behaviour in isolation.
 */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const apiKey = options.apiKey ?? SENTINEL_KEY;
  const simulator = await startGatewaySimulator({ validKeys: [apiKey], ...options.simulator });
  const profile = profileSchema.parse({
    id: 'test',
    name: 'Test gateway',
    baseUrl: simulator.baseUrl,
    retry: { maxRetries: 3, maxRetryAfterMs: 8000 },
    ...options.profile,
  });
  const identity = options.identity ?? { tokenName: 'tests', pinnedProfileId: null };
  const events = new RequestEvents();
  const seen: RequestLifecycleEvent[] = [];
  const endWaiters: ((event: Extract<RequestLifecycleEvent, { type: 'end' }>) => void)[] = [];
  events.subscribe((event) => {
    seen.push(event);
    if (event.type === 'end') endWaiters.shift()?.(event);
  });
  const proxy = await startServer({
    commandHint: PLAIN_HINT,
    port: 0,
    events,
    services: {
      authenticator: { authenticate: () => identity },
      targets: { resolve: () => ({ profile, apiKey }) },
      ...(options.spendGate ? { spendGate: options.spendGate } : {}),
    },
    ...(options.translation ? { translation: options.translation } : {}),
    ...(options.nativeVerified ? { nativeVerified: options.nativeVerified } : {}),
    ...(options.captureLimitBytes === undefined ? {} : { captureLimitBytes: () => options.captureLimitBytes as number }),
    ...(options.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: options.requestTimeoutMs }),
    ...(options.idempotency ? { idempotency: options.idempotency } : {}),
    ...(options.listenerFaults ? { listenerFaults: options.listenerFaults } : {}),
    ...(options.relistenDelayMs === undefined ? {} : { relistenDelayMs: options.relistenDelayMs }),
  });
  const nextEnd = (): Promise<Extract<RequestLifecycleEvent, { type: 'end' }>> => new Promise((resolve) => endWaiters.push(resolve));
  return {
    proxy,
    simulator,
    profile,
    events: seen,
    subscribe: (listener) => events.subscribe(listener),
    nextEnd,
    async postChat(body = chatBody()) {
      const ended = nextEnd();
      const response = await rawRequest(`${proxy.url}/v1/chat/completions`, { method: 'POST', headers: JSON_HEADERS, body });
      return { response, end: await ended };
    },
    async postAnswered(path, request, gatewayAnswer) {
      simulator.script({ kind: 'text', status: 200, ...gatewayAnswer });
      const ended = nextEnd();
      const response = await rawRequest(`${proxy.url}${path}`, {
        method: 'POST',
        headers: { ...JSON_HEADERS, authorization: `Bearer ${apiKey}` },
        body: JSON.stringify(request),
      });
      return { response, end: await ended };
    },
    async close() {
      await proxy.stop();
      await simulator.close();
    },
  };
}

/** A harness that translates: Claude Code's and Codex's model names routed to the gateway's chat model. */
export function startTranslatingHarness(): Promise<Harness> {
  return startHarness({
    profile: {
      modelRoutes: [
        { pattern: 'claude-*', target: 'gpt-4o-mini' },
        { pattern: 'gpt-5*', target: 'gpt-4o-mini' },
      ],
    },
  });
}
