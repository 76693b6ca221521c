import type { Dispatcher } from 'undici';
import { Agent, loadProxyClasses } from './undiciAgent.ts';
import type { UpstreamProxy } from './upstreamProxy.ts';
import { SleepWatch } from './sleepWatch.ts';

/**
 * Keep-alive dispatchers to the gateways, one per connect timeout (profiles may differ) and route:
 * directly, or through the proxy of the gateway's scheme. undici rather than node:http: measured
 * here at 1.6x the throughput and a tenth of the p99 latency.
 */
const directAgents = new Map<number, Dispatcher>();
const proxiedAgents = new Map<string, Dispatcher>();
/** The proxy gateways are reached through (upstreamProxy.ts); null: directly. */
let upstreamProxy: UpstreamProxy | null = null;

/**
 * From now on, gateways are reached through this proxy (null: directly). Set at start, for the
 * process: the environment it comes from is the process's. The dispatchers in use are dropped, not
 * closed: a request on one still waiting for its tunnel failed when it was closed, and their idle
 * connections close by themselves after the keep-alive timeout.
 */
export function reachGatewaysThrough(proxy: UpstreamProxy | null): void {
  upstreamProxy = proxy;
  leaveConnectionsFromBeforeSleep();
}

const sleepWatch = new SleepWatch();

/**
 * A kept-alive connection from before the machine slept may be dead: the gateway gave up on it, or
 * the laptop woke on another network, where a request written on it meets silence (no reset) and
 * waited out the idle timeout (5 minutes by default) before its client heard anything, not resent,
 * as the gateway may have had it. undici cannot tell on Linux: its 30 s keep-alive timer, like
 * every timer here, runs on the monotonic clock, which stood still during the suspend (macOS's runs
 * on, so the timer closes such connections at the wake: sleepWatch.ts), and it resends no request a
 * pooled connection failed (nodejs/undici#3492; a fix for idempotent ones, #5403, was closed
 * unmerged; Airlock's own resend covers a reset within a round trip, closedWhileIdle). Chromium
 * likewise drops its idle sockets when the network changes (ClientSocketPoolManager's flush on IP
 * address change). So the first request after a sleep finds the dispatchers dropped, as
 * reachGatewaysThrough drops them, and connects anew; requests still running on the old ones go on, and their idle connections close by themselves.
 */
export function leaveConnectionsFromBeforeSleep(): void {
  directAgents.clear();
  proxiedAgents.clear();
}

/** What a dispatcher is chosen by: the gateway's scheme and whether its host is this computer. */
export interface GatewayPlace {
  secure: boolean;
  /** localhost, *.localhost, 127.0.0.0/8 or [::1]. */
  loopback: boolean;
}

/** The place of a URL's host (an origin or a whole URL), as `new URL` reads it. */
export function gatewayPlaceOf(url: URL): GatewayPlace {
  const host = url.hostname.toLowerCase();
  const loopback = host === 'localhost' || host.endsWith('.localhost') || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
  return { secure: url.protocol === 'https:', loopback };
}

/**
 * The proxy URL a gateway is sent through; '' for none. A gateway on this computer never is (a
 * LiteLLM or Ollama on localhost): a company proxy would connect to its own localhost, and
 * Chromium, Go's net/http and .NET never send loopback through a proxy either.
 */
function proxyUrlFor(place: GatewayPlace): string {
  if (upstreamProxy === null || place.loopback) return '';
  return place.secure ? upstreamProxy.httpsProxyUrl : upstreamProxy.httpProxyUrl;
}

export function agentFor(place: GatewayPlace, connectTimeoutMs: number): Dispatcher {
  if (sleepWatch.slept()) leaveConnectionsFromBeforeSleep();
  const proxyUrl = proxyUrlFor(place);
  if (proxyUrl === '') {
    // Keyed by the number alone on the way most requests take: no key text built per request.
    let agent = directAgents.get(connectTimeoutMs);
    if (!agent) {
      agent = newAgent('', connectTimeoutMs);
      directAgents.set(connectTimeoutMs, agent);
    }
    return agent;
  }
  const key = `${connectTimeoutMs} ${proxyUrl}`;
  let agent = proxiedAgents.get(key);
  if (!agent) {
    agent = newAgent(proxyUrl, connectTimeoutMs);
    proxiedAgents.set(key, agent);
  }
  return agent;
}

/** The proxy a gateway's URL is sent through ('' for none; NO_PROXY's exceptions aside), for words about a failure. */
export function proxyUrlOf(gatewayUrl: string): string {
  const url = URL.parse(gatewayUrl);
  return url === null ? '' : proxyUrlFor(gatewayPlaceOf(url));
}

function newAgent(proxyUrl: string, connectTimeoutMs: number): Dispatcher {
  const options = {
    connect: { timeout: connectTimeoutMs, noDelay: true },
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 600_000,
    // docs/gateway-spec.md §4.2: never buffer a stream; our own timers handle idle and total time.
    headersTimeout: 0,
    bodyTimeout: 0,
  };
  if (proxyUrl === '' || upstreamProxy === null) return new Agent(options);
  const { EnvHttpProxyAgent, Pool } = loadProxyClasses();
  // One scheme's proxy under both names: undici sends an https gateway through the http proxy when
  // its own is '' (env-http-proxy-agent.js), and this dispatcher serves one scheme only.
  return new EnvHttpProxyAgent({
    ...options,
    httpProxy: proxyUrl,
    httpsProxy: proxyUrl,
    // Given whole ('' for none), so undici reads nothing of the environment itself.
    noProxy: upstreamProxy.noProxy,
    // The connection to the proxy and the TLS handshake with the gateway through it: `connect` above covers neither.
    proxyTls: { timeout: connectTimeoutMs },
    requestTls: { timeout: connectTimeoutMs },
    // The proxy's answer to CONNECT within the connect timeout too: undici waits 300 s by default, and
    // the wait is before the request has a socket, where neither the client leaving nor a stop ends it.
    clientFactory: (origin: URL, clientOptions: object) => new Pool(origin, { ...clientOptions, headersTimeout: connectTimeoutMs }),
  });
}

export async function closeUpstreamAgents(): Promise<void> {
  const closing = [...directAgents.values(), ...proxiedAgents.values()].map((agent) => agent.close());
  directAgents.clear();
  proxiedAgents.clear();
  await Promise.allSettled(closing);
}
