import { describe, expect, it } from 'vitest';
import { isLoopbackHost, normalizeBaseUrl } from '../../../proxy/core/baseUrl.ts';
import { findSentinel, SENTINEL_KEY } from '../../support/sentinel.ts';

describe('normalizeBaseUrl', () => {
  it.each([
    ['https://api.x.hk', 'https://api.x.hk/v1'],
    ['https://api.x.hk/', 'https://api.x.hk/v1'],
    ['https://api.x.hk/v1', 'https://api.x.hk/v1'],
    ['https://api.x.hk/v1/', 'https://api.x.hk/v1'],
    ['https://api.x.hk/v1///', 'https://api.x.hk/v1'],
    ['https://api.x.hk/v1/v1', 'https://api.x.hk/v1'],
    ['https://api.x.hk/v1/chat/completions', 'https://api.x.hk/v1'],
    ['https://api.x.hk/v1/models', 'https://api.x.hk/v1'],
    ['https://api.x.hk/v1/responses', 'https://api.x.hk/v1'],
    ['https://api.x.hk/v1/messages', 'https://api.x.hk/v1'],
    ['https://api.x.hk/chat/completions', 'https://api.x.hk/v1'],
    ['  https://api.x.hk/v1 \n', 'https://api.x.hk/v1'],
    ['"https://api.x.hk/v1"', 'https://api.x.hk/v1'],
    ["'https://api.x.hk'", 'https://api.x.hk/v1'],
    ['\u201Chttps://api.x.hk/v1\u201D', 'https://api.x.hk/v1'],
    ['https://api.x.hk/v1#frag', 'https://api.x.hk/v1'],
    ['https://api.x.hk/v1?', 'https://api.x.hk/v1'],
    ['api.x.hk', 'https://api.x.hk/v1'],
    ['api.x.hk/v1/chat/completions', 'https://api.x.hk/v1'],
    ['HTTPS://API.X.HK/v1', 'https://api.x.hk/v1'],
    ['https://api.x.hk:443/v1', 'https://api.x.hk/v1'],
    ['https://api.x.hk:8443/v1', 'https://api.x.hk:8443/v1'],
    ['https://h.hk/api/v1', 'https://h.hk/api/v1'],
    ['https://h.hk/api/v1/chat/completions', 'https://h.hk/api/v1'],
    ['https://h.hk/api', 'https://h.hk/api/v1'],
    ['http://127.0.0.1:8080', 'http://127.0.0.1:8080/v1'],
    ['http://localhost:3000/v1/', 'http://localhost:3000/v1'],
    // A local server typed without a scheme speaks plain http (Ollama, vLLM, LiteLLM): https could never connect.
    ['localhost:11434/v1', 'http://localhost:11434/v1'],
    ['127.0.0.1:4000', 'http://127.0.0.1:4000/v1'],
    ['[::1]:8000/v1', 'http://[::1]:8000/v1'],
    // A scheme typed with a slash or the colon missing: the scheme must not become the host name.
    ['https:/api.x.hk/v1', 'https://api.x.hk/v1'],
    ['https:api.x.hk/v1', 'https://api.x.hk/v1'],
    ['https:///api.x.hk/v1', 'https://api.x.hk/v1'],
    ['http//127.0.0.1:8080/v1', 'http://127.0.0.1:8080/v1'],
    ['httpsapi.x.hk', 'https://httpsapi.x.hk/v1'],
    // Copied from a web page or chat: zero-width characters are invisible, and were kept percent-encoded in the path.
    ['https://api.x.hk/v1\u200B', 'https://api.x.hk/v1'],
    ['https://api.x.hk/V1', 'https://api.x.hk/v1'],
    ['https://api.x.hk/V1/chat/completions', 'https://api.x.hk/v1'],
    ['https://api.x.hk/v1.', 'https://api.x.hk/v1'],
    ['(https://api.x.hk/v1).', 'https://api.x.hk/v1'],
    ['<https://api.x.hk/v1>', 'https://api.x.hk/v1'],
    ['\u2060https://api.x.hk/\u200Dv1', 'https://api.x.hk/v1'],
    // An IPv4 loopback address written the IPv6 way is this machine too: no warning about plain http.
    ['http://[::ffff:127.0.0.1]:8080/v1', 'http://[::ffff:7f00:1]:8080/v1'],
    // The address a server listens on (vLLM and uvicorn print http://0.0.0.0:8000): connecting to it reaches this
    // machine's loopback on Linux and macOS, and fails on Windows (nodejs/node#14900), so it becomes the loopback.
    ['http://0.0.0.0:8000', 'http://127.0.0.1:8000/v1'],
    ['0.0.0.0:8000/v1', 'http://127.0.0.1:8000/v1'],
    ['http://[::]:8000/v1', 'http://[::1]:8000/v1'],
  ])('%j -> %s', (input, expected) => {
    const result = normalizeBaseUrl(input);
    expect(result).toEqual({ ok: true, baseUrl: expected });
  });

  it.each([
    ['http://api.x.hk/v1', 'http://api.x.hk/v1', /unencrypted/],
    ['https://api.x.hk/v1/engines/foo', 'https://api.x.hk/v1', /engines\/foo.*ignored/],
    // A query is never sent: dropped without a word, the gateway refused what the user meant it to carry.
    ['https://api.x.hk/v1?key=abc#frag', 'https://api.x.hk/v1', /query after \? was ignored.*key field/],
    [
      'https://res.openai.azure.com/openai/deployments/gpt4/chat/completions?api-version=2024-02-01',
      'https://res.openai.azure.com/openai/deployments/gpt4/v1',
      /query after \? was ignored.*openai\/v1 without an api-version/,
    ],
  ])('%s is accepted with a warning', (input, expected, warning) => {
    const result = normalizeBaseUrl(input);
    expect(result.ok && result.baseUrl).toBe(expected);
    expect(result.ok && result.warning).toMatch(warning);
  });

  it.each([
    ['', /empty/],
    ['  ""  ', /empty/],
    ['ftp://api.x.hk/v1', /ftp:/],
    ['file:///etc/passwd', /file:/],
    ['https://api.x.hk/v1 extra', /space/],
    ['https://', /not a valid address/],
    ['https://api.x.hk:0/v1', /port is 0/],
    ['https://api.x.hk:99999/v1', /not a valid address/],
  ])('%j is refused', (input, reason) => {
    const result = normalizeBaseUrl(input);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toMatch(reason);
  });

  it.each([[`https://user:${SENTINEL_KEY}@api.x.hk/v1`], [`https://${SENTINEL_KEY}@api.x.hk`]])(
    'credentials in %s are refused without echoing them',
    (input) => {
      const result = normalizeBaseUrl(input);
      expect(result.ok).toBe(false);
      expect(!result.ok && result.reason).toMatch(/credentials/);
      expect(JSON.stringify(result)).not.toContain(SENTINEL_KEY);
    },
  );

  // The key pasted into the address field parsed as a host name: saved, and sent to the DNS resolver with every request.
  it.each([
    [SENTINEL_KEY],
    [`https://${SENTINEL_KEY}`],
    [`"${SENTINEL_KEY}"`],
    [`${SENTINEL_KEY}/v1`],
    ['AIzaSyD3x9Kq7Lm2Np8Rt5Vw1Yz4Bc6Df0Gh2Jk'],
    ['0123456789abcdef0123456789abcdef'],
    // A JWT: dotted, but its labels are mixed-case random runs, and a payload passes DNS's 63.
    ['eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJhaXJsb2NrIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c'],
    // Slashes the URL parser skips before a host: a backslash typed for a slash, a protocol-relative address.
    [`https:\\\\${SENTINEL_KEY}`],
    [`https:/\\${SENTINEL_KEY}/v1`],
    [`//${SENTINEL_KEY}/v1`],
  ])('a key pasted as the address (%s) is refused without echoing it', (input) => {
    const result = normalizeBaseUrl(input);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toMatch(/looks like a gateway key.*key field/);
    expect(JSON.stringify(result).toLowerCase()).not.toContain(
      input
        .replace(/^(https:)?[/\\]+|"|\/v1$/g, '')
        .toLowerCase()
        .slice(0, 16),
    );
  });

  it.each([
    ['https://my-gateway-01.corp.example/v1'],
    ['http://llm-proxy:4000/v1'],
    ['https://a1b2c3d4e5f6a7b8.lambda-url.us-east-1.on.aws'],
    // The key shapes in a lower-case label of a dotted name: a real gateway's name, not a key.
    ['https://sk-openai-gateway.azurewebsites.net/v1'],
    ['https://0123456789abcdef0123456789abcdef.gateway.example/v1'],
  ])('a host name with digits (%s) is still an address', (input) => {
    expect(normalizeBaseUrl(input).ok).toBe(true);
  });

  // Kept as the path prefix, the key sat in airlock.json, the window and every text naming the base URL.
  const DEEPSEEK_SHAPED_KEY = 'sk-3f9a2b7c8d1e4f5a6b7c8d9e0f1a2b3c';
  const GOOGLE_SHAPED_KEY = 'AIzaSyD3x9Kq7Lm2Np8Rt5Vw1Yz4Bc6Df0Gh2Jk';
  it.each([
    [`https://gw.example/${SENTINEL_KEY}/v1`, SENTINEL_KEY],
    [`https://gw.example/api/${SENTINEL_KEY}/v1/chat/completions`, SENTINEL_KEY],
    [`https://gw.example/${SENTINEL_KEY}`, SENTINEL_KEY],
    [`https://gw.example/${DEEPSEEK_SHAPED_KEY}/v1`, DEEPSEEK_SHAPED_KEY],
    [`https://gw.example/${GOOGLE_SHAPED_KEY}/v1`, GOOGLE_SHAPED_KEY],
  ])('a key pasted into the path before /v1 (%s) is refused without echoing it', (input, key) => {
    const result = normalizeBaseUrl(input);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toMatch(/looks like a gateway key in its path.*key field/);
    expect(findSentinel(JSON.stringify(result), key)).toBeNull();
  });

  it.each([
    // A cloud's account id, 32 hex digits as the key shapes have (Cloudflare's Workers AI).
    [
      'https://api.cloudflare.com/client/v4/accounts/023e105f4ecef8ad9ca31a8372d0c353/ai/v1',
      '/client/v4/accounts/023e105f4ecef8ad9ca31a8372d0c353/ai/v1',
    ],
    ['https://res.openai.azure.com/openai/v1', '/openai/v1'],
    ['https://gw.example/proxy/0b1fa2c3-4d5e-6f70-8192-a3b4c5d6e7f8/v1', '/proxy/0b1fa2c3-4d5e-6f70-8192-a3b4c5d6e7f8/v1'],
    // A name with the sk- shape, kept as a host label and a profile name are (an SK Group company's gateway).
    ['https://llm.example.com/sk-telecom-gateway/v1', '/sk-telecom-gateway/v1'],
    ['https://llm.example.com/ai/sk-hynix-llm-proxy/v1', '/ai/sk-hynix-llm-proxy/v1'],
  ])('a path prefix with ids (%s) is kept', (input, path) => {
    const result = normalizeBaseUrl(input);
    expect(result.ok && new URL(result.baseUrl).pathname).toBe(path);
  });

  it('a key pasted after the address is not echoed in the warning', () => {
    const result = normalizeBaseUrl(`https://api.x.hk/v1/${SENTINEL_KEY}`);
    expect(result.ok && result.baseUrl).toBe('https://api.x.hk/v1');
    expect(result.ok && result.warning).toMatch(/was ignored/);
    expect(JSON.stringify(result)).not.toContain(SENTINEL_KEY);
  });
});

describe('isLoopbackHost', () => {
  it.each([
    ['localhost', true],
    ['app.localhost', true],
    ['127.0.0.1', true],
    ['127.1.2.3', true],
    ['[::1]', true],
    ['api.x.hk', false],
    ['127.0.0.1.evil.hk', false],
    ['10.0.0.1', false],
    ['[::ffff:7f00:1]', true],
    ['::ffff:127.0.0.1', true],
    ['[::ffff:a00:1]', false],
    ['::ffff:10.0.0.1', false],
  ])('%s -> %s', (host, expected) => {
    expect(isLoopbackHost(host)).toBe(expected);
  });
});
