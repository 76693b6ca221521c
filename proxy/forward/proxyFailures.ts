import { networkFailureCode, proxyAnswerStatus } from '../core/errorClass.ts';
import { PROXY_NO_ANSWER_CODE, PROXY_UNREACHABLE_CODE } from '../core/errorExplanations.ts';
import { proxyShown } from './upstreamProxy.ts';

/**
 * A failure before the request had a socket, as the attempt reports it. undici's headers timeout
 * then can only be the proxy's CONNECT going unanswered (upstreamAgents.ts bounds it by the connect
 * timeout): as it was, the user read that the gateway stopped sending and was told to raise
 * idleTimeoutMs.
 */
export function tunnelFailure(error: Error, connectTimeoutMs: number): Error {
  if (networkFailureCode(error) !== 'UND_ERR_HEADERS_TIMEOUT') return error;
  return Object.assign(new Error(`the proxy did not answer Airlock's CONNECT within ${connectTimeoutMs} ms`), {
    name: 'ProxyNoAnswerError',
    code: PROXY_NO_ANSWER_CODE,
  });
}

interface Attempted {
  host: string;
  port: number;
}

/** The addresses a connection error says it tried: Node's socket and DNS errors, undici's connect timeout, Happy Eyeballs' AggregateError. */
function attemptedAddresses(error: unknown): Attempted[] {
  if (typeof error !== 'object' || error === null) return [];
  const failed = error as {
    hostname?: unknown;
    address?: unknown;
    port?: unknown;
    syscall?: unknown;
    code?: unknown;
    message?: unknown;
    errors?: unknown;
  };
  if (Array.isArray(failed.errors)) return failed.errors.flatMap(attemptedAddresses);
  if (failed.syscall === 'getaddrinfo' && typeof failed.hostname === 'string') return [{ host: failed.hostname, port: 0 }];
  if (failed.syscall === 'connect' && typeof failed.address === 'string' && typeof failed.port === 'number') {
    return [{ host: failed.address, port: failed.port }];
  }
  if (failed.code === 'UND_ERR_CONNECT_TIMEOUT' && typeof failed.message === 'string') {
    // undici's words (lib/core/util.js): "(attempted address: host:port, timeout: …)" or "addresses: ip:port, ip:port, timeout".
    const listed = /attempted address(?:es)?: (.*?), timeout/.exec(failed.message)?.[1] ?? '';
    return listed.split(', ').flatMap((hostPort) => {
      const at = hostPort.lastIndexOf(':');
      return at > 0 ? [{ host: hostPort.slice(0, at), port: Number(hostPort.slice(at + 1)) }] : [];
    });
  }
  return [];
}

function portOf(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}

const bare = (host: string): string => host.replace(/^\[|\]$/g, '');

/**
 * Whether a connection error names the proxy's address rather than the gateway's. Through a tunnel
 * the gateway's own connection failures come back as the proxy's answer (a 5xx), so a socket error
 * is the proxy's when it names the proxy's host name, or its port where the gateway's differs; where
 * both ports match, only an address written as the proxy's URL writes it. NO_PROXY may have sent the
 * request directly, so nothing less is taken for the proxy's.
 */
function failedReachingProxy(error: unknown, proxy: URL, gateway: URL): boolean {
  const attempts = attemptedAddresses(error);
  return (
    attempts.length > 0 &&
    attempts.every(({ host, port }) => {
      if (port === 0) return bare(host) === bare(proxy.hostname) && proxy.hostname !== gateway.hostname;
      if (port !== portOf(proxy)) return false;
      return port !== portOf(gateway) || bare(host) === bare(proxy.hostname);
    })
  );
}

/** A failed attempt told as the proxy's, where it was: Airlock's code, the proxy as shown, and what happened. */
export interface ProxyFailure {
  errorCode: string;
  proxyShown: string;
  message: string;
}

/**
 * `code`: networkFailureCode's, which tells a proxy's refusing answer (core/errorClass.ts);
 * `proxyUrl`: the proxy the gateway is sent through (upstreamAgents.ts proxyUrlOf), '' for none.
 */
export function proxyFailureOf(error: unknown, code: string | null, proxyUrl: string, gatewayUrl: string): ProxyFailure | null {
  const proxy = URL.parse(proxyUrl);
  const gateway = URL.parse(gatewayUrl);
  if (proxy === null || gateway === null) return null;
  const shown = proxyShown(proxyUrl);
  const status = proxyAnswerStatus(error);
  if (status !== null && code !== null) {
    return { errorCode: code, proxyShown: shown, message: `the proxy answered ${status} to Airlock's CONNECT for ${gateway.host}` };
  }
  if (code === PROXY_NO_ANSWER_CODE) return { errorCode: code, proxyShown: shown, message: (error as Error).message };
  const cause = (error as { cause?: unknown } | null)?.cause;
  for (const link of [error, cause]) {
    if (failedReachingProxy(link, proxy, gateway)) {
      return { errorCode: PROXY_UNREACHABLE_CODE, proxyShown: shown, message: (link as Error).message };
    }
  }
  return null;
}
