import { describe, expect, it } from 'vitest';
import { proxyUrlOfPacAnswer, systemProxyVariables } from '../../../electron/logic/systemProxy.ts';

describe('proxyUrlOfPacAnswer', () => {
  it.each<[string, string | null]>([
    ['DIRECT', null],
    ['', null],
    ['PROXY proxy.corp:8080', 'http://proxy.corp:8080'],
    ['PROXY proxy.corp:8080; DIRECT', 'http://proxy.corp:8080'],
    ['HTTPS secure.corp:443', 'https://secure.corp:443'],
    ['proxy lower.corp:3128', 'http://lower.corp:3128'],
    // Entries Airlock cannot speak to are skipped, in order, as Chromium falls back past a failing one.
    ['SOCKS5 socks.corp:1080; PROXY proxy.corp:8080', 'http://proxy.corp:8080'],
    ['SOCKS5 socks.corp:1080; DIRECT; PROXY proxy.corp:8080', null],
    ['QUIC quic.corp:443', null],
    ['PROXY', null],
  ])('%j -> %s', (answer, expected) => {
    expect(proxyUrlOfPacAnswer(answer)).toBe(expected);
  });
});

describe('systemProxyVariables', () => {
  it.each<[string, { url: string; pacAnswer: string }[], Record<string, string>]>([
    ['no proxy anywhere', [{ url: 'https://api.gw.example/v1', pacAnswer: 'DIRECT' }], {}],
    [
      'an https gateway through a proxy',
      [{ url: 'https://api.gw.example/v1', pacAnswer: 'PROXY p.corp:8080' }],
      { HTTPS_PROXY: 'http://p.corp:8080' },
    ],
    [
      'an http gateway through a proxy',
      [{ url: 'http://gw.lan:4000/v1', pacAnswer: 'PROXY p.corp:8080' }],
      { HTTP_PROXY: 'http://p.corp:8080' },
    ],
    [
      "a PAC file that sends the company's own gateway directly",
      [
        { url: 'https://api.gw.example/v1', pacAnswer: 'PROXY p.corp:8080' },
        { url: 'https://llm.corp.example/v1', pacAnswer: 'DIRECT' },
        { url: 'http://127.0.0.1:4000/v1', pacAnswer: 'DIRECT' },
      ],
      { HTTPS_PROXY: 'http://p.corp:8080', NO_PROXY: 'llm.corp.example,127.0.0.1' },
    ],
    [
      "the active profile's proxy, the first, wins for its scheme",
      [
        { url: 'https://active.example/v1', pacAnswer: 'PROXY first.corp:1' },
        { url: 'https://other.example/v1', pacAnswer: 'PROXY second.corp:2' },
      ],
      { HTTPS_PROXY: 'http://first.corp:1' },
    ],
    ['a base URL that does not parse is left out', [{ url: 'not a url', pacAnswer: 'PROXY p.corp:8080' }], {}],
  ])('%s', (_name, gateways, expected) => {
    expect(systemProxyVariables(gateways)).toEqual(expected);
  });
});
