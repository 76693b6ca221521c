import { describe, expect, it } from 'vitest';
import { gatewayPlaceOf } from '../../../proxy/forward/upstreamAgents.ts';
import { dispatchTarget } from '../../../proxy/forward/upstreamClient.ts';

describe('dispatchTarget', () => {
  // Each URL twice: the second answer comes from the cache and must still be what `new URL` makes of it.
  it.each([
    ['https://api.deepseek.com/v1/chat/completions', 'https://api.deepseek.com', '/v1/chat/completions'],
    ['http://127.0.0.1:8080/v1/models?after=abc&limit=2', 'http://127.0.0.1:8080', '/v1/models?after=abc&limit=2'],
    ['https://GATEWAY.example:443/v1/x', 'https://gateway.example', '/v1/x'],
    ['https://gateway.example/v1/a b/é', 'https://gateway.example', '/v1/a%20b/%C3%A9'],
    ['https://gateway.example/v1/a/../b/./c', 'https://gateway.example', '/v1/b/c'],
    ['https://gateway.example/v1/x?q=a b', 'https://gateway.example', '/v1/x?q=a%20b'],
  ])('%s', (url, origin, path) => {
    for (let time = 0; time < 2; time += 1) expect(dispatchTarget(url)).toMatchObject({ origin, path });
    const parsed = new URL(url);
    expect(dispatchTarget(url)).toEqual({
      origin: parsed.origin,
      path: `${parsed.pathname}${parsed.search}`,
      place: gatewayPlaceOf(parsed),
    });
  });

  it('throws for text that is no URL, as new URL does', () => {
    expect(() => dispatchTarget('not a url')).toThrow(TypeError);
  });
});
