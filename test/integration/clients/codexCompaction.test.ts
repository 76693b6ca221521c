import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { expectBilledTranslations, type TokenPrice } from '../../support/clients/billedExchanges.ts';
import { CODEX_EXEC_FLAGS, runCodexExec } from '../../support/clients/agentRuns.ts';
import { codexCli, installedVersion } from '../../support/clients/clientBinaries.ts';
import { createClientSandbox, offlineClientEnv, type ClientSandbox } from '../../support/clients/clientSandbox.ts';
import { settledExchanges } from '../../support/clients/exchanges.ts';
import { codexOpenAiProviderToml } from '../../support/clients/codexConfig.ts';
import { runCli, transcript, type CliResult } from '../../support/clients/runCli.ts';

/**
 * Codex compacts a conversation that nears its limit (here: past a low model_auto_compact_token_limit,
 * after the first tool call). With a custom provider it asks the model for a summary in an ordinary
 * turn; with OpenAI's own provider (`openai_base_url`) it asks the Responses API to compact: an input
 * ending in a `compaction_trigger` item, answered by one `compaction` output item holding encrypted
 * state (codex-rs core/src/compact.rs should_use_remote_compact_task: OpenAI and Azure providers only).
 */

const CLI_TIMEOUT_MS = 45_000;
const TEST_TIMEOUT_MS = 60_000;
const SETTLE_TIMEOUT_MS = 5_000;
const CLIENT_TOKEN = 'alk_codex_client';
const CLIENT_MODEL = 'gpt-5-codex';
const PRICE: TokenPrice = { model: 'gpt-4o-mini', inputPer1M: 0.15, outputPer1M: 0.6 };
const COMPACT_AFTER_TOKENS = 1000;

let harness: Harness;
let sandbox: ClientSandbox;

beforeAll(async () => {
  harness = await startHarness({ profile: { modelRoutes: [{ pattern: 'gpt-5*', target: PRICE.model }], prices: [PRICE] } });
});
afterAll(async () => {
  await harness.close();
});
beforeEach(async () => {
  harness.simulator.reset();
  sandbox = await createClientSandbox('codex');
});
afterEach(async () => {
  await sandbox.remove();
});

const toolCallThenAnswers = () =>
  harness.simulator.script(
    { kind: 'reply', toolCalls: [{ name: 'exec_command', arguments: JSON.stringify({ cmd: 'echo airlock-tool-ok', login: false }) }] },
    { kind: 'reply', content: 'airlock-summary' },
    { kind: 'reply', content: 'final-answer-after-compaction' },
  );

/** `codex exec` on OpenAI's built-in provider pointed at Airlock (`openai_base_url`), the client token as its API key. */
async function runCodexOnOpenAiProvider(prompt: string): Promise<CliResult> {
  const codexHome = join(sandbox.homeDir, '.codex');
  await mkdir(codexHome, { recursive: true });
  const config = codexOpenAiProviderToml({ proxyUrl: harness.proxy.url, model: CLIENT_MODEL, autoCompactTokenLimit: COMPACT_AFTER_TOKENS });
  await writeFile(join(codexHome, 'config.toml'), config);
  return runCli({
    cli: codexCli(),
    args: [...CODEX_EXEC_FLAGS, prompt],
    cwd: sandbox.workDir,
    env: offlineClientEnv(sandbox.homeDir, { CODEX_HOME: codexHome, CODEX_API_KEY: CLIENT_TOKEN }),
    timeoutMs: CLI_TIMEOUT_MS,
  });
}

describe(`Codex CLI ${installedVersion('@openai/codex')} compacting through Airlock's translation`, () => {
  it(
    'with a custom provider (as Connect writes it) compacts in an ordinary summary turn, and every turn is billed',
    async () => {
      toolCallThenAnswers();
      const firstEventIndex = harness.events.length;
      const result = await runCodexExec({
        sandbox,
        proxyUrl: harness.proxy.url,
        token: CLIENT_TOKEN,
        model: CLIENT_MODEL,
        prompt: 'Run the command',
        codexProvider: { autoCompactTokenLimit: COMPACT_AFTER_TOKENS },
      });
      expect(result.exitCode, transcript(result)).toBe(0);
      expect(result.stderr).toContain('context compacted');
      expect(result.stdout.trim()).toBe('final-answer-after-compaction');
      const exchanges = await settledExchanges(harness, firstEventIndex, SETTLE_TIMEOUT_MS);
      expect(exchanges).toHaveLength(3);
      expectBilledTranslations(exchanges, 'responses', PRICE);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "with OpenAI's provider is told remote compaction needs OpenAI and how to fix it, and nothing is sent for it",
    async () => {
      toolCallThenAnswers();
      const firstEventIndex = harness.events.length;
      const result = await runCodexOnOpenAiProvider('Run the command');
      expect(result.stderr, transcript(result)).toMatch(/compaction_trigger.*model_providers\.airlock/);
      // The tool turn only: the compaction request never reached the gateway, so it cost nothing.
      expect(harness.simulator.received.map(({ method, path }) => [method, path])).toEqual([['POST', '/v1/chat/completions']]);
      const exchanges = await settledExchanges(harness, firstEventIndex, SETTLE_TIMEOUT_MS);
      const refused = exchanges.filter(({ end }) => end.errorClass !== null);
      expect(refused.length).toBeGreaterThan(0);
      for (const { end } of refused) expect(end).toMatchObject({ status: 400, costCredits: null });
      expect(result.stdout).not.toContain('airlock-summary');
    },
    TEST_TIMEOUT_MS,
  );
});
