import { describe, expect, it } from 'vitest';
import { clientRetriesItself, finalAnswerStatus } from '../../../proxy/forward/clientRetries.ts';

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

describe('finalAnswerStatus', () => {
  const codex = { originator: 'codex_cli_rs' };
  it.each([
    ['a budget cap to Codex', codex, 402, 400],
    ['a refusal (paused, key breaker) to Codex', codex, 403, 400],
    ['a model not found to Codex', codex, 404, 400],
    ['a body over the limit to Codex', codex, 413, 400],
    ['a 400 to Codex', codex, 400, 400],
    ['a missing client token to Codex', codex, 401, 401],
    ['the WebSocket handshake to Codex, its way to HTTP', codex, 426, 426],
    ['an empty balance to Codex (429 insufficient_quota)', codex, 429, 429],
    ['a stopping Airlock to Codex', codex, 503, 503],
    ['a budget cap to the OpenAI SDK', { 'x-stainless-retry-count': '0' }, 402, 402],
    ['a refusal to the AI SDK', { 'user-agent': 'ai-sdk/openai-compatible/1.0.19' }, 403, 403],
    ['a refusal to curl', { 'user-agent': 'curl/8.5.0' }, 403, 403],
  ])('%s', (_label, headers, status, expected) => {
    expect(finalAnswerStatus(headers, status)).toBe(expected);
  });
});
