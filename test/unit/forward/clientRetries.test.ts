import { describe, expect, it } from 'vitest';
import { clientRetriesItself } from '../../../proxy/forward/clientRetries.ts';

describe('clientRetriesItself', () => {
  it.each([
    ['the OpenAI or Anthropic SDK (Claude Code too), first attempt', { 'x-stainless-retry-count': '0' }, true],
    ['an SDK retry', { 'x-stainless-retry-count': '2' }, true],
    ['Codex', { originator: 'codex_cli_rs' }, true],
    // openai/codex (codex-rs, is_first_party_originator): codex-tui, codex_vscode and any
    // "Codex <product>" (the desktop app) are Codex too, on the same core and its retries.
    ['the Codex TUI', { originator: 'codex-tui' }, true],
    ['the Codex VS Code extension', { originator: 'codex_vscode' }, true],
    ['the Codex desktop app', { originator: 'Codex Desktop' }, true],
    [
      'the AI SDK (opencode and other apps on it)',
      { 'user-agent': 'ai-sdk/openai-compatible/1.0.19 ai-sdk/provider-utils/3.0.10 runtime/node.js/24' },
      true,
    ],
    [
      'the AI SDK, RFC 9110 product tokens',
      { 'user-agent': 'ai-sdk-anthropic/3.0.0 ai-sdk-provider-utils/4.0.15 runtime-node.js/24' },
      true,
    ],
    ['an app whose name merely contains ai-sdk', { 'user-agent': 'my-ai-sdkish-tool/1.0' }, false],
    ['curl', { 'user-agent': 'curl/8.5.0' }, false],
    ['another originator', { originator: 'my-script' }, false],
    ['nothing said', {}, false],
  ])('%s -> %s', (_label, headers, expected) => {
    expect(clientRetriesItself(headers)).toBe(expected);
  });
});
