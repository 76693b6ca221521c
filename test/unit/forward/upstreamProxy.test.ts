import { describe, expect, it } from 'vitest';
import { buildClientError } from '../../../proxy/core/clientError.ts';
import { proxyShown, proxyVariableSet, upstreamProxyFromEnv, type UpstreamProxy } from '../../../proxy/forward/upstreamProxy.ts';

describe('upstreamProxyFromEnv', () => {
  it.each<[string, NodeJS.ProcessEnv, Partial<UpstreamProxy> | null]>([
    ['nothing set', {}, null],
    ['an empty variable is unset', { HTTPS_PROXY: '  ' }, null],
    [
      'HTTPS_PROXY for https gateways only',
      { HTTPS_PROXY: 'http://proxy.corp:3128' },
      { httpsProxyUrl: 'http://proxy.corp:3128/', httpProxyUrl: '' },
    ],
    [
      'HTTP_PROXY for http gateways only',
      { HTTP_PROXY: 'http://proxy.corp:3128' },
      { httpsProxyUrl: '', httpProxyUrl: 'http://proxy.corp:3128/' },
    ],
    [
      'lower case before upper case, as curl reads them',
      { https_proxy: 'http://lower:1', HTTPS_PROXY: 'http://upper:2' },
      { httpsProxyUrl: 'http://lower:1/' },
    ],
    [
      'ALL_PROXY for a scheme whose own is unset',
      { ALL_PROXY: 'http://all:8080', HTTP_PROXY: 'http://plain:80' },
      { httpsProxyUrl: 'http://all:8080/', httpProxyUrl: 'http://plain/' },
    ],
    ['no scheme is http://, as curl takes it', { HTTPS_PROXY: 'proxy.corp:3128' }, { httpsProxyUrl: 'http://proxy.corp:3128/' }],
    ['an https:// proxy', { HTTPS_PROXY: 'https://proxy.corp:443' }, { httpsProxyUrl: 'https://proxy.corp/' }],
    [
      'credentials kept for the proxy',
      { HTTPS_PROXY: 'http://alice:p%40ss@proxy.corp:3128' },
      { httpsProxyUrl: 'http://alice:p%40ss@proxy.corp:3128/' },
    ],
    ['NO_PROXY as written', { HTTPS_PROXY: 'http://p:1', no_proxy: 'localhost,.corp', NO_PROXY: 'other' }, { noProxy: 'localhost,.corp' }],
  ])('%s', (_name, env, expected) => {
    const { proxy, problems } = upstreamProxyFromEnv(env);
    expect(problems).toEqual([]);
    if (expected === null) expect(proxy).toBeNull();
    else expect(proxy).toMatchObject(expected);
  });

  it('says which proxy serves which gateways, and the exceptions, without the credentials', () => {
    const { proxy } = upstreamProxyFromEnv({
      HTTPS_PROXY: 'http://alice:sentinel-proxy-password@proxy.corp:3128',
      http_proxy: 'http://plain.corp:80',
      NO_PROXY: 'localhost,127.0.0.1',
    });
    expect(proxy?.description).toBe(
      'Reaching https:// gateways through http://proxy.corp:3128 (HTTPS_PROXY), http:// gateways through http://plain.corp (http_proxy); directly to localhost,127.0.0.1 (NO_PROXY).',
    );
    expect(proxy?.description).not.toContain('sentinel-proxy-password');
  });

  it.each<[string, NodeJS.ProcessEnv, RegExp]>([
    [
      'a SOCKS proxy',
      { ALL_PROXY: 'socks5://alice:sentinel-proxy-password@127.0.0.1:1080' },
      /ALL_PROXY names a socks5 proxy \(socks5:\/\/127\.0\.0\.1:1080\)/,
    ],
    ['a value that is no URL', { HTTPS_PROXY: 'http://' }, /HTTPS_PROXY is not a proxy URL/],
    [
      'a password whose / is not percent-encoded, which would make its start the host and port',
      { HTTPS_PROXY: 'http://alice:1234/sentinel-proxy-password@proxy.corp:3128' },
      /HTTPS_PROXY is not a proxy URL Airlock can read \(percent-encode/,
    ],
  ])('ignores %s, and says so once', (_name, env, said) => {
    const { proxy, problems } = upstreamProxyFromEnv(env);
    expect(proxy).toBeNull();
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(said);
    expect(problems[0]).not.toContain('sentinel-proxy-password');
  });

  it("says NO_PROXY's address ranges match nothing", () => {
    const { proxy, problems } = upstreamProxyFromEnv({ HTTPS_PROXY: 'http://p:1', NO_PROXY: 'localhost,10.0.0.0/8 192.168.0.0/16' });
    expect(proxy?.noProxy).toBe('localhost,10.0.0.0/8 192.168.0.0/16');
    expect(problems).toEqual([
      "NO_PROXY's 10.0.0.0/8, 192.168.0.0/16 is an address range, which Airlock does not read: name the hosts instead",
    ]);
  });

  it('keeps a usable proxy beside an unusable one', () => {
    const { proxy, problems } = upstreamProxyFromEnv({ HTTPS_PROXY: 'http://proxy.corp:3128', HTTP_PROXY: 'socks4://old:1080' });
    expect(proxy).toMatchObject({ httpsProxyUrl: 'http://proxy.corp:3128/', httpProxyUrl: '' });
    expect(problems).toEqual([expect.stringMatching(/^HTTP_PROXY names a socks4 proxy/)]);
  });
});

describe('proxyShown', () => {
  it.each([
    ['http://alice:secret@proxy.corp:3128/', 'http://proxy.corp:3128'],
    ['https://proxy.corp/', 'https://proxy.corp'],
    ['not a url', '(a proxy URL that does not parse)'],
  ])('%s -> %s', (url, shown) => {
    expect(proxyShown(url)).toBe(shown);
  });
});

describe("a proxy's failure in the client's error", () => {
  it.each([
    ['proxy_refused', /refused to connect Airlock to the gateway.*A 407 or 401 asks for the proxy's user name and password/],
    ['proxy_gateway_unreachable', /could not connect to the gateway.*Check the base URL's host and port/],
    ['proxy_unreachable', /could not connect to the HTTP proxy.*Check that the proxy runs/],
  ])('%s: its own cause and fix, naming the proxy', (errorCode, said) => {
    const { error } = buildClientError('network', {
      errorCode,
      proxyShown: 'http://proxy.corp:3128',
      upstreamMessage: 'the proxy answered 407',
      profileName: 'work',
      baseUrl: 'https://api.gateway.example/v1',
    });
    expect(error.message).toMatch(said);
    expect(error.message).toContain('(profile "work", base URL https://api.gateway.example/v1, through the proxy http://proxy.corp:3128)');
    expect(error.message).not.toContain('Check the network, VPN or firewall');
    expect(error.code).toBe(errorCode);
  });
});

describe('proxyVariableSet', () => {
  it.each<[NodeJS.ProcessEnv, string | null]>([
    [{}, null],
    [{ NO_PROXY: 'localhost' }, null],
    [{ HTTPS_PROXY: ' ' }, null],
    [{ https_proxy: 'http://p:1' }, 'https_proxy'],
    [{ HTTP_PROXY: 'http://p:1', https_proxy: 'http://q:2' }, 'https_proxy'],
    [{ ALL_PROXY: 'http://p:1' }, 'ALL_PROXY'],
  ])('%j -> %s', (env, expected) => {
    expect(proxyVariableSet(env)).toBe(expected);
  });
});
