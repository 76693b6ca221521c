import { describe, expect, it } from 'vitest';
import { networkFailureCode } from '../../../proxy/core/errorClass.ts';
import { classifyNetworkFailure } from '../../../proxy/core/errorClass.ts';
import { proxyFailureOf, tunnelFailure } from '../../../proxy/forward/proxyFailures.ts';

const HTTPS_PROXY = 'http://alice:sentinel-proxy-password@proxy.corp:3128/';
const HTTP_PROXY = 'http://10.0.0.9:8080/';

/** A Node connection error as net.connect and dns.lookup make them. */
function connectError(code: string, address: string, port: number): Error {
  return Object.assign(new Error(`connect ${code} ${address}:${port}`), { code, syscall: 'connect', address, port });
}
function lookupError(hostname: string): Error {
  return Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', syscall: 'getaddrinfo', hostname });
}
function proxyAnswered(status: number): Error {
  return Object.assign(new Error(`Proxy response (${status}) !== 200 when HTTP Tunneling`), {
    name: 'AbortError',
    code: 'UND_ERR_ABORTED',
  });
}
/** undici's ConnectTimeoutError, in its words (lib/core/util.js). */
function connectTimeout(attempted: string): Error {
  return Object.assign(new Error(`Connect Timeout Error (${attempted}, timeout: 10000ms)`), { code: 'UND_ERR_CONNECT_TIMEOUT' });
}

describe('proxyFailureOf: a failure told as the proxy', () => {
  it.each<[string, Error, string, string, { errorCode: string; proxyShown: string; message: string } | null]>([
    [
      'a refused tunnel',
      proxyAnswered(407),
      HTTPS_PROXY,
      'https://api.gateway.example/v1',
      {
        errorCode: 'proxy_refused',
        proxyShown: 'http://proxy.corp:3128',
        message: "the proxy answered 407 to Airlock's CONNECT for api.gateway.example",
      },
    ],
    [
      'a gateway the proxy could not reach',
      proxyAnswered(503),
      HTTPS_PROXY,
      'https://api.gateway.example:8443/v1',
      {
        errorCode: 'proxy_gateway_unreachable',
        proxyShown: 'http://proxy.corp:3128',
        message: expect.stringContaining('api.gateway.example:8443'),
      },
    ],
    [
      'the proxy not running (its port)',
      connectError('ECONNREFUSED', '10.1.2.3', 3128),
      HTTPS_PROXY,
      'https://api.gateway.example/v1',
      { errorCode: 'proxy_unreachable', proxyShown: 'http://proxy.corp:3128', message: 'connect ECONNREFUSED 10.1.2.3:3128' },
    ],
    [
      'the proxy refusing on each of its addresses (Happy Eyeballs)',
      Object.assign(new AggregateError([connectError('ECONNREFUSED', '10.1.2.3', 3128), connectError('ECONNREFUSED', '::1', 3128)], ''), {
        code: 'ECONNREFUSED',
      }),
      HTTPS_PROXY,
      'https://api.gateway.example/v1',
      { errorCode: 'proxy_unreachable', proxyShown: 'http://proxy.corp:3128', message: '' },
    ],
    [
      "the proxy's name not resolving",
      new TypeError('fetch failed', { cause: lookupError('proxy.corp') }),
      HTTPS_PROXY,
      'https://api.gateway.example/v1',
      { errorCode: 'proxy_unreachable', proxyShown: 'http://proxy.corp:3128', message: 'getaddrinfo ENOTFOUND proxy.corp' },
    ],
    [
      'no connection to the proxy within the connect timeout',
      connectTimeout('attempted address: proxy.corp:3128'),
      HTTPS_PROXY,
      'https://api.gateway.example/v1',
      { errorCode: 'proxy_unreachable', proxyShown: 'http://proxy.corp:3128', message: expect.stringContaining('proxy.corp:3128') },
    ],
    [
      'no connection within the connect timeout to any of its addresses',
      connectTimeout('attempted addresses: 10.1.2.3:3128, 10.1.2.4:3128'),
      HTTPS_PROXY,
      'https://api.gateway.example/v1',
      { errorCode: 'proxy_unreachable', proxyShown: 'http://proxy.corp:3128', message: expect.stringContaining('10.1.2.4:3128') },
    ],
    [
      'no answer to its CONNECT',
      tunnelFailure(Object.assign(new Error('Headers Timeout Error'), { code: 'UND_ERR_HEADERS_TIMEOUT' }), 10_000),
      HTTPS_PROXY,
      'https://api.gateway.example/v1',
      {
        errorCode: 'proxy_no_answer',
        proxyShown: 'http://proxy.corp:3128',
        message: "the proxy did not answer Airlock's CONNECT within 10000 ms",
      },
    ],
    [
      "an http:// gateway's proxy, at the proxy's literal address",
      connectError('ECONNREFUSED', '10.0.0.9', 8080),
      HTTP_PROXY,
      'http://gateway.lan:8080/v1',
      { errorCode: 'proxy_unreachable', proxyShown: 'http://10.0.0.9:8080', message: 'connect ECONNREFUSED 10.0.0.9:8080' },
    ],
    [
      'a gateway in NO_PROXY reached directly (its own port)',
      connectError('ECONNREFUSED', '10.1.2.3', 443),
      HTTPS_PROXY,
      'https://api.gateway.example/v1',
      null,
    ],
    [
      "a gateway's name not resolving (reached directly)",
      lookupError('api.gateway.example'),
      HTTPS_PROXY,
      'https://api.gateway.example/v1',
      null,
    ],
    [
      "a gateway's connect timeout (reached directly)",
      connectTimeout('attempted address: api.gateway.example:443'),
      HTTPS_PROXY,
      'https://api.gateway.example/v1',
      null,
    ],
    [
      'the same port, a named proxy: not told apart',
      connectError('ECONNREFUSED', '10.0.0.1', 3128),
      HTTPS_PROXY,
      'https://gw.example:3128/v1',
      null,
    ],
    [
      'a reset',
      Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }),
      HTTPS_PROXY,
      'https://api.gateway.example/v1',
      null,
    ],
    ['no proxy for the gateway', proxyAnswered(407), '', 'https://api.gateway.example/v1', null],
  ])('%s', (_name, error, proxyUrl, gatewayUrl, expected) => {
    expect(proxyFailureOf(error, networkFailureCode(error), proxyUrl, gatewayUrl)).toEqual(expected);
  });
});

describe('tunnelFailure', () => {
  it("makes undici's headers timeout before the request had a socket the proxy's silence: a connect timeout, not an idle one", () => {
    const failure = tunnelFailure(Object.assign(new Error('Headers Timeout Error'), { code: 'UND_ERR_HEADERS_TIMEOUT' }), 5000);
    expect(networkFailureCode(failure)).toBe('proxy_no_answer');
    expect(classifyNetworkFailure(failure)).toBe('timeout_connect');
  });

  it('leaves any other failure as it is', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    expect(tunnelFailure(refused, 5000)).toBe(refused);
  });
});
