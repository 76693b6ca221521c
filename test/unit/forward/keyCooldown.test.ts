import { describe, expect, it } from 'vitest';
import { DEFAULT_KEY_COOLDOWN_MS, parseResetDurationMs, rateLimitCooldownMs } from '../../../proxy/forward/keyCooldown.ts';

const NOW = Date.UTC(2026, 10, 26, 4, 0, 0);

describe('rateLimitCooldownMs', () => {
  it.each<{ name: string; headers: Record<string, string>; expected: number }>([
    { name: 'Retry-After in seconds', headers: { 'retry-after': '7' }, expected: 7000 },
    { name: 'Retry-After as an HTTP date', headers: { 'retry-after': new Date(NOW + 15_000).toUTCString() }, expected: 15_000 },
    {
      name: 'Retry-After wins over the OpenAI reset headers',
      headers: { 'retry-after': '2', 'x-ratelimit-reset-requests': '6m0s' },
      expected: 2000,
    },
    { name: "Azure's retry-after-ms, read before Retry-After", headers: { 'retry-after-ms': '1500', 'retry-after': '2' }, expected: 1500 },
    { name: "OpenAI's reset of requests", headers: { 'x-ratelimit-reset-requests': '1m30s' }, expected: 90_000 },
    {
      name: 'the longer of the requests and tokens resets',
      headers: { 'x-ratelimit-reset-requests': '20ms', 'x-ratelimit-reset-tokens': '1.5s' },
      expected: 1500,
    },
    { name: 'nothing said (new-api): the default', headers: {}, expected: DEFAULT_KEY_COOLDOWN_MS },
    { name: 'a daily limit is capped at a day', headers: { 'retry-after': '999999' }, expected: 86_400_000 },
  ])('$name', ({ headers, expected }) => {
    expect(rateLimitCooldownMs(headers, NOW)).toBe(expected);
  });

  it.each([
    ['6m0s', 360_000],
    ['20ms', 20],
    ['1h2m3s', 3_723_000],
    ['soon', null],
    ['', null],
  ])('parses the duration %s', (text, expected) => {
    expect(parseResetDurationMs(text)).toBe(expected);
  });
});
