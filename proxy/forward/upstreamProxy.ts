import { proxyAnswerStatus } from '../core/errorClass.ts';
import { PROXY_UNREACHABLE_CODE } from '../core/errorExplanations.ts';

/**
 * The HTTP proxy Airlock reaches gateways through, as the environment names it. Behind a company's
 * proxy the tools reach the gateway through it (curl, Python's httpx and requests, Codex's reqwest,
 * Claude Code all read HTTPS_PROXY, HTTP_PROXY and NO_PROXY), so Airlock, now between them and the
 * gateway, must too: without it every tool that worked stopped working once pointed at Airlock.
 */
export interface UpstreamProxy {
  /** For https:// gateways; '' for none. May hold the proxy's credentials: never shown. */
  httpsProxyUrl: string;
  /** For http:// gateways; '' for none. */
  httpProxyUrl: string;
  /** Hosts reached directly (curl's NO_PROXY syntax, as undici's EnvHttpProxyAgent reads it); '' for none. */
  noProxy: string;
  /** What is used, for the user: each proxy without its credentials, the variable it came from, the exceptions. */
  description: string;
}

export interface UpstreamProxySetting {
  proxy: UpstreamProxy | null;
  /** Values that name no proxy Airlock can use, in words; such a variable is ignored. */
  problems: string[];
}

/** The scheme a proxy value without one gets, as curl gives it (a proxy spoken to in plain HTTP). */
const DEFAULT_PROXY_SCHEME = 'http://';
/** undici's ProxyAgent speaks HTTP to the proxy, over TLS for https:// (SOCKS is not offered here). */
const USABLE_PROXY_SCHEMES = new Set(['http:', 'https:']);

interface Named {
  variable: string;
  value: string;
}

/** The first set variable of the names, lower case before upper case as curl and undici read them. */
function firstSet(env: NodeJS.ProcessEnv, names: readonly string[]): Named | null {
  for (const variable of names) {
    const value = env[variable]?.trim();
    if (value) return { variable, value };
  }
  return null;
}

/** The proxy URL without its user name and password, for text a user sees. */
export function proxyShown(url: string): string {
  const parsed = URL.parse(url);
  if (parsed === null) return '(a proxy URL that does not parse)';
  return `${parsed.protocol}//${parsed.host}`;
}

/** A named value as a proxy URL Airlock can use, or the problem with it. */
function usableProxy(named: Named): { url: string } | { problem: string } {
  const text = named.value.includes('://') ? named.value : `${DEFAULT_PROXY_SCHEME}${named.value}`;
  const url = URL.parse(text);
  if (url === null || url.hostname === '') return { problem: `${named.variable} is not a proxy URL Airlock can read, so it is ignored` };
  if (!USABLE_PROXY_SCHEMES.has(url.protocol)) {
    return {
      problem: `${named.variable} names a ${url.protocol.slice(0, -1)} proxy (${proxyShown(text)}); Airlock speaks only to http:// and https:// proxies, so it is ignored`,
    };
  }
  return { url: url.href };
}

/**
 * The proxy settings of an environment: HTTPS_PROXY for https:// gateways and HTTP_PROXY for http://
 * ones, ALL_PROXY for either when its own is unset (curl's rule), NO_PROXY for the exceptions.
 */
export function upstreamProxyFromEnv(env: NodeJS.ProcessEnv): UpstreamProxySetting {
  const problems: string[] = [];
  const all = firstSet(env, ['all_proxy', 'ALL_PROXY']);
  const pick = (names: readonly string[]): { url: string; variable: string } | null => {
    const named = firstSet(env, names) ?? all;
    if (named === null) return null;
    const usable = usableProxy(named);
    if ('problem' in usable) {
      if (!problems.includes(usable.problem)) problems.push(usable.problem);
      return null;
    }
    return { url: usable.url, variable: named.variable };
  };
  const https = pick(['https_proxy', 'HTTPS_PROXY']);
  const http = pick(['http_proxy', 'HTTP_PROXY']);
  if (https === null && http === null) return { proxy: null, problems };
  const noProxy = firstSet(env, ['no_proxy', 'NO_PROXY']);
  const used = [
    https && `https:// gateways through ${proxyShown(https.url)} (${https.variable})`,
    http && `http:// gateways through ${proxyShown(http.url)} (${http.variable})`,
  ];
  const exceptions = noProxy === null ? '' : `; directly to ${noProxy.value} (${noProxy.variable})`;
  return {
    proxy: {
      httpsProxyUrl: https?.url ?? '',
      httpProxyUrl: http?.url ?? '',
      noProxy: noProxy?.value ?? '',
      description: `Reaching ${used.filter((part) => part !== null).join(', ')}${exceptions}.`,
    },
    problems,
  };
}

/** The proxy a gateway of this URL's scheme is sent through ('' for none), NO_PROXY's exceptions aside. */
function proxyUrlFor(proxy: UpstreamProxy, gatewayUrl: string): string {
  return URL.parse(gatewayUrl)?.protocol === 'http:' ? proxy.httpProxyUrl : proxy.httpsProxyUrl;
}

/**
 * Whether Node's connection error names the proxy's address rather than the gateway's. Through a
 * tunnel the gateway's own connection failures come back as the proxy's answer (a 5xx), so a
 * socket error is the proxy's when it names the proxy's host name (DNS) or its port where the
 * gateway's differs; where both ports match, only an address written as the proxy's URL writes it.
 */
function failedReachingProxy(error: unknown, proxyUrl: string, gatewayUrl: string): boolean {
  const proxy = URL.parse(proxyUrl);
  const gateway = URL.parse(gatewayUrl);
  if (proxy === null || gateway === null || typeof error !== 'object' || error === null) return false;
  const failed = error as { hostname?: unknown; address?: unknown; port?: unknown; syscall?: unknown };
  if (failed.syscall === 'getaddrinfo') return failed.hostname === proxy.hostname && proxy.hostname !== gateway.hostname;
  if (failed.syscall !== 'connect' || typeof failed.port !== 'number') return false;
  if (failed.port !== portOf(proxy)) return false;
  return failed.port !== portOf(gateway) || failed.address === proxy.hostname.replace(/^\[|\]$/g, '');
}

function portOf(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}

/** A failed attempt told as the proxy's, where it was: Airlock's code, the proxy as shown, and what happened. */
export interface ProxyFailure {
  errorCode: string;
  proxyShown: string;
  message: string;
}

/** `code`: networkFailureCode's, which tells a proxy's refusing answer (core/errorClass.ts). */
export function proxyFailureOf(error: unknown, code: string | null, proxy: UpstreamProxy | null, gatewayUrl: string): ProxyFailure | null {
  if (proxy === null) return null;
  const proxyUrl = proxyUrlFor(proxy, gatewayUrl);
  if (proxyUrl === '') return null;
  const shown = proxyShown(proxyUrl);
  const status = proxyAnswerStatus(error);
  if (status !== null && code !== null) {
    const host = URL.parse(gatewayUrl)?.host ?? gatewayUrl;
    return { errorCode: code, proxyShown: shown, message: `the proxy answered ${status} to Airlock's CONNECT for ${host}` };
  }
  const cause = (error as { cause?: unknown } | null)?.cause;
  for (const link of [error, cause]) {
    if (failedReachingProxy(link, proxyUrl, gatewayUrl)) {
      return { errorCode: PROXY_UNREACHABLE_CODE, proxyShown: shown, message: (link as Error).message };
    }
  }
  return null;
}
