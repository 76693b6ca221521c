import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ConnectApplyResponse, ConnectRequest, ConnectToolId } from '../../../proxy/contracts/connect.ts';
import { gatewayKeyAccount } from '../../../proxy/contracts/secretStore.ts';
import { claudeCodeCli, codexCli, installedVersion } from '../../support/clients/clientBinaries.ts';
import { createClientSandbox, offlineClientEnv, type ClientSandbox } from '../../support/clients/clientSandbox.ts';
import { receivedChatRequests } from '../../support/clients/receivedChat.ts';
import { CODEX_EXEC_FLAGS } from '../../support/clients/agentRuns.ts';
import { runCli, transcript } from '../../support/clients/runCli.ts';
import { startControlHarness, type ControlHarness } from '../../support/controlHarness.ts';
import { findSentinel, SENTINEL_KEY } from '../../support/sentinel.ts';

const CLI_TIMEOUT_MS = 45_000;
const TEST_TIMEOUT_MS = 90_000;
/** Settings a test run needs to stay offline; none of them says where to send requests or with what key. */
const OFFLINE_CLAUDE_ENV = {
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  DISABLE_AUTOUPDATER: '1',
  DISABLE_TELEMETRY: '1',
  DISABLE_ERROR_REPORTING: '1',
};

let sandbox: ClientSandbox;
let harness: ControlHarness;

beforeEach(async () => {
  sandbox = await createClientSandbox('connect');
  harness = await startControlHarness({ homeDir: sandbox.homeDir });
});
afterEach(async () => {
  await harness.close();
  await sandbox.remove();
});

async function apply(tool: ConnectToolId, request: ConnectRequest): Promise<ConnectApplyResponse> {
  const response = await harness.api(`/connect/${tool}/apply`, { method: 'POST', body: JSON.stringify(request) });
  const text = await response.text();
  expect(findSentinel(text)).toBeNull();
  expect(response.status, text).toBe(200);
  return JSON.parse(text) as ConnectApplyResponse;
}

async function addMainProfile(): Promise<void> {
  const created = await harness.api('/profiles', {
    method: 'POST',
    body: JSON.stringify({ id: 'main', name: 'Main', baseUrl: harness.simulator.baseUrl }),
  });
  expect(created.status).toBe(201);
  expect((await harness.api('/profiles/main/key', { method: 'PUT', body: JSON.stringify({ key: SENTINEL_KEY }) })).status).toBe(200);
}

function writeHomeFile(relative: string, text: string): string {
  const file = join(sandbox.homeDir, relative);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, text);
  return file;
}

describe('tools set up by Connect answer through Airlock with only what it wrote', () => {
  it(
    `Claude Code ${installedVersion('@anthropic-ai/claude-code')}: a cc-switch style key is imported, and claude answers through the new profile`,
    async () => {
      const gatewayRoot = harness.simulator.baseUrl.replace(/\/v1$/, '');
      const settings = writeHomeFile(
        '.claude/settings.json',
        `${JSON.stringify({ env: { ANTHROPIC_BASE_URL: gatewayRoot, ANTHROPIC_AUTH_TOKEN: SENTINEL_KEY }, includeCoAuthoredBy: false, futureSetting: { kept: true } }, null, 2)}\n`,
      );
      harness.simulator.script({ kind: 'reply', content: 'answer-via-connect' });

      const applied = await apply('claude-code', { importKey: true, model: 'deepseek-chat' });

      expect(applied.importProfileId).toBe('127-0-0-1');
      expect(await harness.secrets.get(gatewayKeyAccount('127-0-0-1'))).toBe(SENTINEL_KEY);
      const written = readFileSync(settings, 'utf8');
      expect(findSentinel(written)).toBeNull();
      expect(JSON.parse(written)).toMatchObject({ includeCoAuthoredBy: false, futureSetting: { kept: true } });

      const result = await runCli({
        cli: claudeCodeCli(),
        args: ['-p', 'Reply with the marker', '--no-session-persistence'],
        cwd: sandbox.workDir,
        env: offlineClientEnv(sandbox.homeDir, OFFLINE_CLAUDE_ENV),
        timeoutMs: CLI_TIMEOUT_MS,
      });

      expect(result.exitCode, transcript(result)).toBe(0);
      expect(result.stdout.trim()).toBe('answer-via-connect');
      const [upstream] = receivedChatRequests(harness.simulator);
      expect(upstream).toMatchObject({ authOk: true, model: 'deepseek-chat' });
    },
    TEST_TIMEOUT_MS,
  );

  it(
    `Claude Code ${installedVersion('@anthropic-ai/claude-code')}: a Bedrock switch left in settings.json is turned off, and claude answers through Airlock`,
    async () => {
      await addMainProfile();
      // CLAUDE_CODE_USE_BEDROCK picks the provider before ANTHROPIC_BASE_URL is read; without the
      // fix claude signs requests for bedrock-runtime.us-east-1.amazonaws.com, which this sandbox cannot reach.
      writeHomeFile(
        '.claude/settings.json',
        `${JSON.stringify({ env: { CLAUDE_CODE_USE_BEDROCK: '1', AWS_REGION: 'us-east-1' } }, null, 2)}\n`,
      );
      harness.simulator.script({ kind: 'reply', content: 'answer-not-bedrock' });

      await apply('claude-code', { model: 'deepseek-chat' });

      const result = await runCli({
        cli: claudeCodeCli(),
        args: ['-p', 'Reply with the marker', '--no-session-persistence'],
        cwd: sandbox.workDir,
        env: offlineClientEnv(sandbox.homeDir, OFFLINE_CLAUDE_ENV),
        timeoutMs: CLI_TIMEOUT_MS,
      });

      expect(result.exitCode, transcript(result)).toBe(0);
      expect(result.stdout.trim()).toBe('answer-not-bedrock');
      expect(receivedChatRequests(harness.simulator)[0]).toMatchObject({ authOk: true, model: 'deepseek-chat' });
    },
    TEST_TIMEOUT_MS,
  );

  it(
    `Codex CLI ${installedVersion('@openai/codex')}: a commented config.toml with another provider is edited, and codex answers through Airlock`,
    async () => {
      await addMainProfile();
      const configToml = writeHomeFile(
        '.codex/config.toml',
        [
          '# my Codex settings',
          'model = "o3" # replaced by Connect',
          'check_for_update_on_startup = false',
          '',
          '[analytics]',
          'enabled = false # no uploads',
          '',
          '[feedback]',
          'enabled = false',
          '',
          '# a provider of my own, left alone',
          '[model_providers.local]',
          'name = "Local"',
          'base_url = "http://127.0.0.1:9/v1"',
          'wire_api = "responses"',
          '',
        ].join('\n'),
      );
      harness.simulator.script({ kind: 'reply', content: 'codex-via-connect' });

      await apply('codex', { model: 'gpt-4o-mini' });

      const written = readFileSync(configToml, 'utf8');
      for (const kept of ['# my Codex settings', 'enabled = false # no uploads', '# a provider of my own, left alone']) {
        expect(written).toContain(kept);
      }
      const result = await runCli({
        cli: codexCli(),
        args: [...CODEX_EXEC_FLAGS, 'Reply with the marker'],
        cwd: sandbox.workDir,
        env: offlineClientEnv(sandbox.homeDir, {}),
        timeoutMs: CLI_TIMEOUT_MS,
      });

      expect(result.exitCode, transcript(result)).toBe(0);
      expect(result.stdout.trim()).toBe('codex-via-connect');
      const [upstream] = receivedChatRequests(harness.simulator);
      expect(upstream).toMatchObject({ authOk: true, model: 'gpt-4o-mini' });
    },
    TEST_TIMEOUT_MS,
  );
});
