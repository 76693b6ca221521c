import { describe, expect, it } from 'vitest';
import { isAppRoute } from '../../../proxy/http/requestDispatch.ts';

describe('isAppRoute', () => {
  it.each<[string, boolean]>([
    ['/', true],
    ['/?probe=1', true],
    ['/favicon.ico', true],
    ['/FAVICON.ICO', true],
    ['/favicon.ico/', true],
    ['/_airlock', true],
    ['/_airlock/', true],
    ['/_airlock/api/status?x=1', true],
    ['/_Airlock/api/status', true],
    ['/v1/chat/completions', false],
    ['/v1/chat/completions?_airlock=1', false],
    ['/chat/completions', false],
    ['//', false],
    ['/v1/', false],
    ['/v1/_airlock', false],
    ['/favicon.ico.png', false],
    ['', false],
  ])('%s -> %s', (target, expected) => {
    expect(isAppRoute(target)).toBe(expected);
  });
});
