import { describe, expect, it } from 'vitest';
import { isLoopbackHost, normalizeBaseUrl } from '../../../proxy/core/baseUrl.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';

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
    ['https://api.x.hk/v1?key=abc#frag', 'https://api.x.hk/v1'],
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
