import { afterEach, describe, expect, it } from 'vitest';
import { agentFor, gatewayPlaceOf, proxyUrlOf, reachGatewaysThrough } from '../../../proxy/forward/upstreamAgents.ts';
import { upstreamProxyFromEnv } from '../../../proxy/forward/upstreamProxy.ts';

afterEach(() => reachGatewaysThrough(null));

describe('gatewayPlaceOf', () => {
  it.each<[string, boolean, boolean]>([
    ['https://api.gw.example/v1', true, false],
    ['http://gw.lan:4000/v1', false, false],
    ['http://localhost:4000/v1', false, true],
    ['http://LOCALHOST:4000/v1', false, true],
    ['http://litellm.localhost/v1', false, true],
    ['http://127.0.0.1:11434/v1', false, true],
    ['http://127.1.2.3/v1', false, true],
    ['http://[::1]:4000/v1', false, true],
    ['http://localhost.example.com/v1', false, false],
    ['http://128.0.0.1/v1', false, false],
  ])('%s: secure %s, loopback %s', (url, secure, loopback) => {
    expect(gatewayPlaceOf(new URL(url))).toEqual({ secure, loopback });
  });
});

describe('which proxy a gateway is sent through', () => {
  it.each<[string, NodeJS.ProcessEnv, string, string]>([
    ['no proxy set', {}, 'https://api.gw.example/v1', ''],
    [
      "an https gateway, HTTPS_PROXY's",
      { HTTPS_PROXY: 'http://s.corp:1', HTTP_PROXY: 'http://p.corp:2' },
      'https://api.gw.example/v1',
      'http://s.corp:1/',
    ],
    [
      "an http gateway, HTTP_PROXY's",
      { HTTPS_PROXY: 'http://s.corp:1', HTTP_PROXY: 'http://p.corp:2' },
      'http://gw.lan/v1',
      'http://p.corp:2/',
    ],
    // undici's EnvHttpProxyAgent itself sends an https gateway through HTTP_PROXY when HTTPS_PROXY is unset.
    ['an https gateway with HTTP_PROXY alone: directly, as curl', { HTTP_PROXY: 'http://p.corp:2' }, 'https://api.gw.example/v1', ''],
    [
      'a gateway on this computer: directly',
      { HTTPS_PROXY: 'http://s.corp:1', HTTP_PROXY: 'http://p.corp:2' },
      'http://127.0.0.1:4000/v1',
      '',
    ],
    ['localhost over https: directly', { HTTPS_PROXY: 'http://s.corp:1' }, 'https://localhost:8443/v1', ''],
  ])('%s', (_name, env, gatewayUrl, expected) => {
    reachGatewaysThrough(upstreamProxyFromEnv(env).proxy);
    expect(proxyUrlOf(gatewayUrl)).toBe(expected);
  });

  it('keeps one dispatcher a route and connect timeout, and starts afresh when the proxy changes', () => {
    const place = gatewayPlaceOf(new URL('https://api.gw.example/v1'));
    const direct = agentFor(place, 10_000);
    expect(agentFor(place, 10_000)).toBe(direct);
    expect(agentFor(place, 5_000)).not.toBe(direct);
    reachGatewaysThrough(upstreamProxyFromEnv({ HTTPS_PROXY: 'http://s.corp:1' }).proxy);
    const proxied = agentFor(place, 10_000);
    expect(proxied).not.toBe(direct);
    expect(agentFor(gatewayPlaceOf(new URL('http://127.0.0.1:1/v1')), 10_000)).not.toBe(proxied);
  });
});
