import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TokenSecretResponse } from '../../../proxy/contracts/clientTokens.ts';
import type { StoredRequest } from '../../../proxy/contracts/log.ts';
import type { FallbackEntry } from '../../../proxy/contracts/profile.ts';
import { startGatewaySimulator, type GatewaySimulator } from '../../simulator/index.ts';
import { keyLeaksInFiles } from '../../support/clients/airlockLeaks.ts';
import { runClaudeCodePrint, runCodexExec } from '../../support/clients/agentRuns.ts';
import { installedVersion } from '../../support/clients/clientBinaries.ts';
import { createClientSandbox, type ClientSandbox } from '../../support/clients/clientSandbox.ts';
import { startHeaderTap, type HeaderTap } from '../../support/clients/headerTap.ts';
import { transcript } from '../../support/clients/runCli.ts';
import { startControlHarness, type ControlHarness } from '../../support/controlHarness.ts';
import { findSentinel, SENTINEL_KEY } from '../../support/sentinel.ts';

/**
 * Issue 22 with the real agents: the first model of the profile fails before any byte, the
 * profile's fallback list answers, and the CLI never learns of the failure. The CLIs hide response
 * headers, so a pass-through tap in front of Airlock shows what they were told.
 */
const TEST_TIMEOUT_MS = 60_000;
const BACKUP_KEY = 'sk-airlock-BACKUP-SENTINEL-9d2e4a6c8b0f13e5a7c9d1b3';

let harness: ControlHarness;
let backup: GatewaySimulator;
let tap: HeaderTap;
let sandbox: ClientSandbox;
let token: string;

async function api<T>(pathAndQuery: string, method: string, body: unknown): Promise<T> {
  const response = await harness.api(pathAndQuery, { method, body: JSON.stringify(body) });
  const text = await response.text();
  expect(response.ok, `${pathAndQuery}: ${text}`).toBe(true);
  return (text === '' ? undefined : JSON.parse(text)) as T;
}
const setMainFallbacks = (fallbacks: FallbackEntry[]) => api('/profiles/main', 'PUT', { fallbacks });

beforeAll(async () => {
  harness = await startControlHarness();
  backup = await startGatewaySimulator({ validKeys: [BACKUP_KEY] });
  // Translated, so no native probe reaches the gateway ahead of the request under test.
  const protocolModes = { messages: 'translate', responses: 'translate' };
  await api('/profiles', 'POST', {
    id: 'main',
    name: 'Main',
    baseUrl: harness.simulator.baseUrl,
    protocolModes,
    modelRoutes: [
      { pattern: 'claude-*', target: 'deepseek-chat' },
      { pattern: 'gpt-5*', target: 'gpt-4o-mini' },
    ],
  });
  await api('/profiles/main/key', 'PUT', { key: SENTINEL_KEY });
  await api('/profiles', 'POST', {
    id: 'backup',
    name: 'Backup',
    baseUrl: backup.baseUrl,
    protocolModes,
    modelRoutes: [{ pattern: 'claude-*', target: 'qwen-plus' }],
  });
  await api('/profiles/backup/key', 'PUT', { key: BACKUP_KEY });
  await api('/profiles/main/activate', 'POST', {});
  token = (await api<TokenSecretResponse>('/tokens', 'POST', { name: 'agent' })).token;
  tap = await startHeaderTap(harness.proxy.url);
});
afterAll(async () => {
  await tap?.close();
  await backup?.close();
  await harness?.close();
});
beforeEach(async () => {
  harness.simulator.reset();
  backup.reset();
  tap.answers.length = 0;
  sandbox = await createClientSandbox('fallback');
});
afterEach(async () => {
  await sandbox.remove();
});

/** The one model request the CLI made, as the tap saw its answer, and its row once it ended. */
async function onlyModelRequest(clientPath: string): Promise<{ headers: Record<string, unknown>; detail: StoredRequest }> {
  const answers = tap.answers.filter((answer) => answer.method === 'POST' && answer.path.startsWith(clientPath));
  expect(answers.map((answer) => answer.status)).toEqual([200]);
  const headers = answers[0]!.headers;
  const id = String(headers['x-airlock-request-id']);
  await expect
    .poll(async () => {
      await harness.log.flush();
      return harness.log.getRequest(id)?.row.state;
    })
    .toBe('done');
  return { headers, detail: harness.log.getRequest(id)! };
}

function expectNoKeyLeak(output: string, detail: StoredRequest): void {
  for (const key of [SENTINEL_KEY, BACKUP_KEY]) {
    expect(findSentinel(output, key)).toBeNull();
    expect(findSentinel(JSON.stringify(detail), key)).toBeNull();
  }
  expect(keyLeaksInFiles(harness.dataDir, [SENTINEL_KEY, BACKUP_KEY])).toEqual([]);
}

describe('the real agent CLIs keep answering when the profile’s first model fails before any byte', () => {
  it(
    `Claude Code ${installedVersion('@anthropic-ai/claude-code')}: a LiteLLM 529 overloaded moves to the backup profile (new-api)`,
    async () => {
      harness.simulator.useDialect('litellm');
      backup.useDialect('new-api');
      await setMainFallbacks([{ profileId: 'backup' }]);
      harness.simulator.script({ kind: 'status', status: 529, path: 'chat/completions' });
      backup.script({ kind: 'reply', content: 'answer-from-backup-profile' });

      const result = await runClaudeCodePrint({
        sandbox,
        proxyUrl: tap.url,
        token,
        model: 'claude-sonnet-4-5',
        prompt: 'Reply with the marker',
      });

      expect(result.exitCode, transcript(result)).toBe(0);
      expect(result.stdout.trim()).toBe('answer-from-backup-profile');
      const { headers, detail } = await onlyModelRequest('/v1/messages');
      expect(headers['x-airlock-answered-by']).toBe('backup/qwen-plus');
      expect(headers['x-airlock-fallbacks']).toBe('1');
      expect(detail.row.fallbackChain).toEqual([
        { profileId: 'main', model: 'deepseek-chat', status: 529, errorClass: 'upstream_error' },
        { profileId: 'backup', model: 'qwen-plus', status: 200, errorClass: null },
      ]);
      expect([detail.row.profileId, detail.row.upstreamModel]).toEqual(['backup', 'qwen-plus']);
      expect(backup.received.map((received) => received.authOk)).toEqual([true]);
      expectNoKeyLeak(result.stdout + result.stderr, detail);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    `Codex CLI ${installedVersion('@openai/codex')}: a new-api 429 with a two-minute Retry-After moves to another model of the profile at once`,
    async () => {
      harness.simulator.useDialect('new-api');
      await setMainFallbacks([{ model: 'deepseek-chat' }]);
      harness.simulator.script(
        { kind: 'status', status: 429, retryAfterS: 120, path: 'chat/completions' },
        { kind: 'reply', content: 'answer-from-second-model' },
      );

      const result = await runCodexExec({ sandbox, proxyUrl: tap.url, token, model: 'gpt-5-codex', prompt: 'Reply with the marker' });

      expect(result.exitCode, transcript(result)).toBe(0);
      expect(result.stdout.trim()).toBe('answer-from-second-model');
      const { headers, detail } = await onlyModelRequest('/v1/responses');
      expect(headers['x-airlock-answered-by']).toBe('main/deepseek-chat');
      expect(headers['x-airlock-fallbacks']).toBe('1');
      expect(detail.row.fallbackChain).toEqual([
        { profileId: 'main', model: 'gpt-4o-mini', status: 429, errorClass: 'rate_limited' },
        { profileId: 'main', model: 'deepseek-chat', status: 200, errorClass: null },
      ]);
      const modelsSent = harness.simulator.received.map((received) => (JSON.parse(received.body.toString()) as { model: string }).model);
      expect(modelsSent).toEqual(['gpt-4o-mini', 'deepseek-chat']);
      expect(backup.received).toEqual([]);
      expectNoKeyLeak(result.stdout + result.stderr, detail);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    `Codex CLI ${installedVersion('@openai/codex')}: a 503 from the seed gateway moves its stream to a named model of the backup profile`,
    async () => {
      harness.simulator.useDialect('seed');
      backup.useDialect('vllm');
      await setMainFallbacks([{ profileId: 'backup', model: 'glm-4.6' }]);
      harness.simulator.script({ kind: 'status', status: 503, path: 'chat/completions' });
      backup.script({ kind: 'reply', content: 'answer-from-backup-model' });

      const result = await runCodexExec({ sandbox, proxyUrl: tap.url, token, model: 'gpt-5-codex', prompt: 'Reply with the marker' });

      expect(result.exitCode, transcript(result)).toBe(0);
      expect(result.stdout.trim()).toBe('answer-from-backup-model');
      const { headers, detail } = await onlyModelRequest('/v1/responses');
      expect(headers['x-airlock-answered-by']).toBe('backup/glm-4.6');
      expect(detail.row.fallbackChain).toEqual([
        { profileId: 'main', model: 'gpt-4o-mini', status: 503, errorClass: 'upstream_error' },
        { profileId: 'backup', model: 'glm-4.6', status: 200, errorClass: null },
      ]);
      expect(detail.row.stream).toBe(true);
      expect(backup.received.map((received) => received.authOk)).toEqual([true]);
      expectNoKeyLeak(result.stdout + result.stderr, detail);
    },
    TEST_TIMEOUT_MS,
  );
});
