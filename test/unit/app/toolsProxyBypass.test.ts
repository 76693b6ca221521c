import { describe, expect, it } from 'vitest';
import { namesAirlock, toolsThroughProxyWarning } from '../../../proxy/app/connect/toolsProxyBypass.ts';

describe('namesAirlock', () => {
  it.each<[string, boolean]>([
    ['127.0.0.1', true],
    ['localhost,127.0.0.1', true],
    ['localhost 127.0.0.1:4141', true],
    ['*', true],
    // What the probed tools do not all match: a name for the address, a range, a domain.
    ['localhost', false],
    ['127.0.0.0/8', false],
    ['.local,127.0.0.10', false],
    ['', false],
  ])('%j -> %s', (noProxy, expected) => {
    expect(namesAirlock(noProxy)).toBe(expected);
  });
});

describe('toolsThroughProxyWarning', () => {
  it.each<[string, NodeJS.ProcessEnv, RegExp | null]>([
    ['no proxy variable', { NO_PROXY: 'localhost' }, null],
    [
      'a proxy and no NO_PROXY',
      { HTTPS_PROXY: 'http://proxy.corp:3128' },
      /through the proxy http:\/\/proxy\.corp:3128 \(HTTPS_PROXY\).*no_proxy and NO_PROXY do not name 127\.0\.0\.1/,
    ],
    ['NO_PROXY=localhost only', { http_proxy: 'proxy.corp:8080', NO_PROXY: 'localhost' }, /proxy\.corp:8080 \(http_proxy\)/],
    ['NO_PROXY names 127.0.0.1', { HTTPS_PROXY: 'http://p:1', NO_PROXY: 'localhost,127.0.0.1' }, null],
    ['no_proxy names it, NO_PROXY unset', { ALL_PROXY: 'http://p:1', no_proxy: '127.0.0.1' }, null],
    [
      'one names it, the other set without it',
      { HTTPS_PROXY: 'http://p:1', NO_PROXY: '127.0.0.1', no_proxy: 'localhost' },
      /: no_proxy does not name 127\.0\.0\.1$/,
    ],
    [
      "the proxy's password is not shown",
      { HTTPS_PROXY: 'http://alice:sentinel-proxy-password@proxy.corp:3128' },
      /^(?!.*sentinel-proxy-password).*proxy\.corp:3128/,
    ],
  ])('%s', (_name, env, expected) => {
    const warning = toolsThroughProxyWarning(env);
    if (expected === null) expect(warning).toBeNull();
    else expect(warning).toMatch(expected);
  });
});
