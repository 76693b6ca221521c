import { parse as parseJsonc } from 'jsonc-parser';
import { describe, expect, it } from 'vitest';
import { claudeCodeAdapter } from '../../../../proxy/app/connect/tools/claudeCode.ts';

const PROXY_URL = 'http://127.0.0.1:8642';
const TOKEN = 'alk_connect_unit_token_0123456789';

/**
 * Claude Code 2.1 picks its API provider from these variables before it looks at
 * ANTHROPIC_BASE_URL: any one of them set sends every request to Bedrock, Vertex, Foundry,
 * Anthropic-on-AWS, Mantle or a cloud gateway session instead (read from the shipped binary's
 * getAPIProvider; https://code.claude.com/docs/en/env-vars lists them).
 */
const PROVIDER_SWITCHES = [
  'CLAUDE_CODE_USE_BEDROCK',
  'CLAUDE_CODE_USE_VERTEX',
  'CLAUDE_CODE_USE_FOUNDRY',
  'CLAUDE_CODE_USE_ANTHROPIC_AWS',
  'CLAUDE_CODE_USE_MANTLE',
  'CLAUDE_CODE_USE_GATEWAY',
];

describe('Claude Code with another API provider switched on in settings.json', () => {
  it.each(PROVIDER_SWITCHES)('%s is removed, so requests go to ANTHROPIC_BASE_URL', (name) => {
    const config = `{\n  "env": {\n    "${name}": "1",\n    "AWS_REGION": "us-east-1"\n  }\n}\n`;
    expect(claudeCodeAdapter.airlockToken({ config }, PROXY_URL)).toBeNull();
    const written = claudeCodeAdapter.connect({ config }, { proxyUrl: PROXY_URL, token: TOKEN });
    const env = (parseJsonc(written.config!) as { env: Record<string, string> }).env;
    expect(env).not.toHaveProperty(name);
    expect(env).toMatchObject({ AWS_REGION: 'us-east-1', ANTHROPIC_BASE_URL: PROXY_URL, ANTHROPIC_AUTH_TOKEN: TOKEN });
  });

  it('is not reported as connected while a switch sends requests elsewhere', () => {
    const config = JSON.stringify({ env: { ANTHROPIC_BASE_URL: PROXY_URL, ANTHROPIC_AUTH_TOKEN: TOKEN, CLAUDE_CODE_USE_VERTEX: 'true' } });
    expect(claudeCodeAdapter.airlockToken({ config }, PROXY_URL)).toBeNull();
    const off = JSON.stringify({ env: { ANTHROPIC_BASE_URL: PROXY_URL, ANTHROPIC_AUTH_TOKEN: TOKEN, CLAUDE_CODE_USE_VERTEX: '0' } });
    expect(claudeCodeAdapter.airlockToken({ config: off }, PROXY_URL)).toBe(TOKEN);
  });
});
