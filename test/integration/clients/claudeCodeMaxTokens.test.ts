import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../simulator/index.ts';
import { DEFAULT_MODEL_IDS } from '../../simulator/models.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { claudeCodeCli, installedVersion } from '../../support/clients/clientBinaries.ts';
import { createClientSandbox, offlineClientEnv, type ClientSandbox } from '../../support/clients/clientSandbox.ts';
import { runCli, transcript, type CliResult } from '../../support/clients/runCli.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';

/**
 * Claude Code's every request states `max_tokens`, which OpenAI's reasoning models (gpt-5.x, o-series)
 * refuse on chat with a 400 (test/simulator/gatewayErrors.ts maxTokensUnsupported cites it): before,
 * Claude Code routed to one through Airlock failed every turn. Now the first request is renamed after
 * the 400, and the model's later ones go as `max_completion_tokens` from the start.
 */
const CLI_TIMEOUT_MS = 45_000;
const TEST_TIMEOUT_MS = 90_000;
const CLIENT_TOKEN = 'alk_claude_code_client';
const GATEWAY_MODEL = 'gpt-5.1';

let harness: Harness;
let sandbox: ClientSandbox;

beforeAll(async () => {
  harness = await startHarness({
    simulator: {
      dialect: DIALECTS.openai,
      models: [...DEFAULT_MODEL_IDS, GATEWAY_MODEL],
      modelCapabilities: { [GATEWAY_MODEL]: { maxTokens: false } },
    },
    profile: { modelRoutes: [{ pattern: 'claude-*', target: GATEWAY_MODEL }] },
  });
});
afterAll(async () => {
  await harness.close();
});
beforeEach(async () => {
  harness.simulator.reset();
  sandbox = await createClientSandbox('claude-code');
});
afterEach(async () => {
  await sandbox.remove();
});

function runClaudePrint(prompt: string): Promise<CliResult> {
  return runCli({
    cli: claudeCodeCli(),
    args: ['-p', prompt, '--model', 'claude-sonnet-4-5', '--no-session-persistence'],
    cwd: sandbox.workDir,
    env: offlineClientEnv(sandbox.homeDir, {
      CLAUDE_CONFIG_DIR: `${sandbox.homeDir}/.claude`,
      ANTHROPIC_BASE_URL: harness.proxy.url,
      ANTHROPIC_API_KEY: CLIENT_TOKEN,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
    }),
    timeoutMs: CLI_TIMEOUT_MS,
  });
}

/** The name each chat request the gateway got bounded its output under. */
function sentBoundNames(): string[] {
  return harness.simulator.received.map((request) =>
    Object.keys(JSON.parse(request.body.toString('utf8')) as Record<string, unknown>)
      .filter((name) => name.startsWith('max_'))
      .join(','),
  );
}

describe(`Claude Code ${installedVersion('@anthropic-ai/claude-code')} through Airlock to a model that refuses max_tokens`, () => {
  it(
    'prints the answer, the first request renamed after the 400 and the next sent renamed at once',
    async () => {
      // Unscripted: the refused request would take a scripted reply (the simulator's faults go per request).
      const first = await runClaudePrint('Reply with the marker');
      expect(first.exitCode, transcript(first)).toBe(0);
      expect(first.stdout).toMatch(/^Simulated reply to:/);
      expect(sentBoundNames()).toEqual(['max_tokens', 'max_completion_tokens']);

      harness.simulator.script({ kind: 'reply', content: 'second-answer' });
      const second = await runClaudePrint('Reply with the marker again');
      expect(second.exitCode, transcript(second)).toBe(0);
      expect(second.stdout.trim()).toBe('second-answer');
      expect(sentBoundNames()).toEqual(['max_tokens', 'max_completion_tokens', 'max_completion_tokens']);
      for (const result of [first, second]) expect(`${result.stdout}${result.stderr}`).not.toContain(SENTINEL_KEY);
    },
    TEST_TIMEOUT_MS,
  );
});
