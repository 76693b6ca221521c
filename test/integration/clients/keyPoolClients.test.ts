import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ProfileView } from '../../../proxy/contracts/profileViews.ts';
import type { TokenSecretResponse } from '../../../proxy/contracts/clientTokens.ts';
import type { DialectName } from '../../simulator/dialects.ts';
import { keyLeaksInFiles } from '../../support/clients/airlockLeaks.ts';
import { runClaudeCodePrint, runCodexExec, type AgentRun } from '../../support/clients/agentRuns.ts';
import { installedVersion } from '../../support/clients/clientBinaries.ts';
import { createClientSandbox, type ClientSandbox } from '../../support/clients/clientSandbox.ts';
import { transcript, type CliResult } from '../../support/clients/runCli.ts';
import { startControlHarness, type ControlHarness } from '../../support/controlHarness.ts';
import { findSentinel, SECOND_SENTINEL_KEY, SENTINEL_KEY } from '../../support/sentinel.ts';

/**
 * Issue 22 with the real agents: a pooled profile whose first key the gateway rate-limits
 * (test/simulator/keyLimits.ts) answers through the second key, the CLI sees only the answer, and
 * neither key shows up in what the CLI printed, the row or Airlock's files. Each run gets a fresh
 * Airlock, since a pool's cooldowns and cursor live for its process.
 */
const TEST_TIMEOUT_MS = 60_000;
const KEYS = [SENTINEL_KEY, SECOND_SENTINEL_KEY];

let harness: ControlHarness;
let sandbox: ClientSandbox;

async function api<T>(pathAndQuery: string, method: string, body: unknown): Promise<T> {
  const response = await harness.api(pathAndQuery, { method, body: JSON.stringify(body) });
  const text = await response.text();
  expect(response.ok, `${pathAndQuery}: ${text}`).toBe(true);
  return JSON.parse(text) as T;
}

beforeEach(async () => {
  harness = await startControlHarness({ simulator: { validKeys: KEYS } });
  sandbox = await createClientSandbox('key-pool');
});
afterEach(async () => {
  await sandbox.remove();
  await harness.close();
});

/** Profile "main" with its own key and a second one added as the window and `airlock key add` do; returns the second key's id. */
async function pooledProfile(): Promise<string> {
  await api('/profiles', 'POST', {
    id: 'main',
    name: 'Main',
    baseUrl: harness.simulator.baseUrl,
    // Translated, so no native probe spends the first key's limit ahead of the request under test.
    protocolModes: { messages: 'translate', responses: 'translate' },
    modelRoutes: [
      { pattern: 'claude-*', target: 'deepseek-chat' },
      { pattern: 'gpt-5*', target: 'gpt-4o-mini' },
    ],
  });
  await api('/profiles/main/key', 'PUT', { key: SENTINEL_KEY });
  const view = await api<ProfileView>('/profiles/main/keys', 'POST', { key: SECOND_SENTINEL_KEY, label: 'second' });
  await api('/profiles/main/activate', 'POST', {});
  const pool = view.keyPool ?? [];
  expect(pool).toHaveLength(2);
  return pool.find((key) => key.label === 'second')?.id ?? '';
}

/** Which key each request reached the gateway with, by its last four characters (the recorder masks the rest). */
const keysReceived = () =>
  harness.simulator.received.map((received) => {
    const authorization = String(received.headers.authorization);
    return KEYS.findIndex((key) => authorization.endsWith(key.slice(-4)));
  });

const clients: Array<{ name: string; dialect: DialectName; model: string; run: (run: AgentRun) => Promise<CliResult> }> = [
  {
    name: `Claude Code ${installedVersion('@anthropic-ai/claude-code')}`,
    dialect: 'openai',
    model: 'claude-sonnet-4-5',
    run: runClaudeCodePrint,
  },
  { name: `Codex CLI ${installedVersion('@openai/codex')}`, dialect: 'litellm', model: 'gpt-5-codex', run: runCodexExec },
];

describe('the real agent CLIs on a pooled profile whose first key is rate-limited', () => {
  it.each(clients)(
    '$name ($dialect gateway): answered through the second key, neither key in its output, the row or the files',
    async ({ dialect, model, run }) => {
      const secondKeyId = await pooledProfile();
      const token = (await api<TokenSecretResponse>('/tokens', 'POST', { name: 'agent' })).token;
      harness.simulator.useDialect(dialect);
      harness.simulator.setKeyRequestLimits({ [SENTINEL_KEY]: 0 }, 60);
      harness.simulator.script({ kind: 'reply', content: 'answer-through-second-key' });

      const result = await run({ sandbox, proxyUrl: harness.proxy.url, token, model, prompt: 'Reply with the marker' });

      expect(result.exitCode, transcript(result)).toBe(0);
      expect(result.stdout.trim()).toBe('answer-through-second-key');
      expect(keysReceived()).toEqual([0, 1]);
      await harness.log.flush();
      const rows = harness.log.listRequests({ limit: 10 }).rows;
      expect(rows.map((row) => [row.status, row.state])).toEqual([[200, 'done']]);
      const detail = harness.log.getRequest(rows[0]!.id)!;
      expect(detail.row.gatewayKeys).toEqual([
        { keyId: 'main', label: 'key 1' },
        { keyId: secondKeyId, label: 'second' },
      ]);
      for (const key of KEYS) {
        expect(findSentinel(result.stdout + result.stderr, key)).toBeNull();
        expect(findSentinel(JSON.stringify(detail), key)).toBeNull();
      }
      expect(keyLeaksInFiles(harness.dataDir, KEYS)).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );
});
