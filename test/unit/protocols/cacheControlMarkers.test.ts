import { describe, expect, it } from 'vitest';
import { promptCacheWritesIn } from '../../../proxy/protocols/cacheControlMarkers.ts';

function piecesOf(bytes: Buffer, pieceBytes: number): Buffer[] {
  const pieces: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += pieceBytes) pieces.push(bytes.subarray(at, at + pieceBytes));
  return pieces;
}

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
    const bytes = Buffer.from(JSON.stringify(body));
    expect(promptCacheWritesIn([bytes])).toBe(writes);
    // As the body arrived: cut anywhere (a marker or its object across the cut), or in pieces of a few bytes.
    for (let cut = 1; cut < bytes.length; cut += 1) expect(promptCacheWritesIn([bytes.subarray(0, cut), bytes.subarray(cut)])).toBe(writes);
    for (const pieceBytes of [1, 3, 7]) expect(promptCacheWritesIn(piecesOf(bytes, pieceBytes))).toBe(writes);
  });

  it('reads a marker with no object after it, and the text past its bound is not its ttl', () => {
    const unclosed = Buffer.from(`{"cache_control": "x", "later": "${'y'.repeat(300)}", "ttl": "1h"`);
    expect(promptCacheWritesIn([unclosed])).toBe('5m');
    expect(promptCacheWritesIn(piecesOf(unclosed, 5))).toBe('5m');
  });

  it('reads a marker written with spaces', () => {
    expect(
      promptCacheWritesIn([Buffer.from('{"system": [{"text": "x", "cache_control" : { "type" : "ephemeral" , "ttl" : "1h" }}]}')]),
    ).toBe('1h');
  });
});
