import { describe, expect, it } from 'vitest';
import { clientRetriesItself } from '../../../proxy/forward/clientRetries.ts';

describe('clientRetriesItself', () => {
  it.each([
    ['the OpenAI or Anthropic SDK (Claude Code too), first attempt', { 'x-stainless-retry-count': '0' }, true],
    ['an SDK retry', { 'x-stainless-retry-count': '2' }, true],
    ['Codex', { originator: 'codex_cli_rs' }, true],
    ['curl', { 'user-agent': 'curl/8.5.0' }, false],
    ['another originator', { originator: 'my-script' }, false],
    ['nothing said', {}, false],
  ])('%s -> %s', (_label, headers, expected) => {
    expect(clientRetriesItself(headers)).toBe(expected);
  });
});
