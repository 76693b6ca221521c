import { describe, expect, it } from 'vitest';
import { promptCacheWritesIn } from '../../../proxy/protocols/cacheControlMarkers.ts';

const block = (cacheControl: unknown): unknown => ({ type: 'text', text: 'the system prompt', cache_control: cacheControl });

describe('promptCacheWritesIn', () => {
  it.each([
    { name: 'no marker', body: { messages: [{ role: 'user', content: 'hi' }] }, writes: 'none' },
    { name: 'a block marked, no ttl: 5 minutes', body: { system: [block({ type: 'ephemeral' })] }, writes: '5m' },
    { name: 'a block marked for 5 minutes', body: { system: [block({ type: 'ephemeral', ttl: '5m' })] }, writes: '5m' },
    { name: 'a block marked for 1 hour', body: { system: [block({ type: 'ephemeral', ttl: '1h' })] }, writes: '1h' },
    { name: 'the ttl before the type', body: { system: [block({ ttl: '1h', type: 'ephemeral' })] }, writes: '1h' },
    {
      name: 'a 1-hour marker after a 5-minute one',
      body: { system: [block({ type: 'ephemeral' }), block({ type: 'ephemeral', ttl: '1h' })] },
      writes: '1h',
    },
    { name: 'top-level (automatic caching)', body: { cache_control: { type: 'ephemeral' }, messages: [] }, writes: '5m' },
    {
      name: 'a "1h" past the marker object is not its ttl',
      body: { system: [block({ type: 'ephemeral' })], metadata: { window: '1h' } },
      writes: '5m',
    },
    // Its quotes are escaped inside a JSON string: `\"cache_control\"` is no key.
    { name: 'a text that names the marker in quotes', body: { messages: [{ content: 'set "cache_control" here' }] }, writes: 'none' },
    { name: 'a text that names the key bare', body: { messages: [{ content: 'cache_control: 1h' }] }, writes: 'none' },
  ] as const)('$name', ({ body, writes }) => {
    expect(promptCacheWritesIn(Buffer.from(JSON.stringify(body)))).toBe(writes);
  });

  it('reads a marker written with spaces', () => {
    expect(promptCacheWritesIn(Buffer.from('{"system": [{"text": "x", "cache_control" : { "type" : "ephemeral" , "ttl" : "1h" }}]}'))).toBe(
      '1h',
    );
  });
});
