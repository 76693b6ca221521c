import { describe, expect, it } from 'vitest';
import {
  appUiUrl,
  decideNavigation,
  decideNewWindow,
  gatewayOrigins,
  isAllowedExternalUrl,
  isAppUiUrl,
} from '../../../electron/logic/navigation.ts';

const ORIGIN = 'http://127.0.0.1:8642';
const ALLOWED = ['https://github.com', 'https://docs.gateway.example'];

describe('isAppUiUrl', () => {
  it.each([
    ['http://127.0.0.1:8642/_airlock/', true],
    ['http://127.0.0.1:8642/_airlock/requests/42?x=1#top', true],
    ['http://127.0.0.1:8642/', false],
    ['http://127.0.0.1:8642/_airlockx/', false],
    ['http://127.0.0.1:8642/v1/models', false],
    ['http://127.0.0.1:9999/_airlock/', false],
    ['http://localhost:8642/_airlock/', false],
    ['https://127.0.0.1:8642/_airlock/', false],
    ['http://user:pw@127.0.0.1:8642/_airlock/', false],
    ['file:///etc/passwd', false],
    ['not a url', false],
  ])('%s -> %s', (url, expected) => {
    expect(isAppUiUrl(url, ORIGIN)).toBe(expected);
  });

  it('builds the UI URL the window loads', () => {
    expect(appUiUrl(ORIGIN)).toBe('http://127.0.0.1:8642/_airlock/');
    expect(isAppUiUrl(appUiUrl(ORIGIN), ORIGIN)).toBe(true);
  });
});

describe('isAllowedExternalUrl', () => {
  it.each([
    ['https://github.com/owner/airlock/issues', true],
    ['https://docs.gateway.example/en/llms.txt', true],
    ['http://github.com/', false],
    ['https://github.com.evil.example/', false],
    ['https://evil.example/?https://github.com', false],
    ['https://user@github.com/', false],
    ['javascript:alert(1)', false],
    ['file:///tmp/x', false],
  ])('%s -> %s', (url, expected) => {
    expect(isAllowedExternalUrl(url, ALLOWED)).toBe(expected);
  });
});

describe('decideNavigation and decideNewWindow', () => {
  it.each([
    ['http://127.0.0.1:8642/_airlock/spend', { action: 'allow' }],
    ['https://github.com/x', { action: 'deny', openExternally: true }],
    ['https://evil.example/', { action: 'deny', openExternally: false }],
    ['http://127.0.0.1:8642/v1/models', { action: 'deny', openExternally: false }],
  ])('navigating to %s', (url, expected) => {
    expect(decideNavigation(url, ORIGIN, ALLOWED)).toEqual(expected);
  });

  it.each([
    ['http://127.0.0.1:8642/_airlock/', false],
    ['https://github.com/x', true],
    ['https://evil.example/', false],
  ])('a new window for %s is denied (external: %s)', (url, openExternally) => {
    expect(decideNewWindow(url, ALLOWED)).toEqual({ action: 'deny', openExternally });
  });
});

describe('gatewayOrigins', () => {
  it('keeps the distinct https origins only', () => {
    expect(gatewayOrigins(['https://api.gw.example/v1', 'https://api.gw.example', 'http://plain.example/v1', 'nonsense'])).toEqual([
      'https://api.gw.example',
    ]);
  });
});
