import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSpendGate } from '../../../proxy/spend/spendGate.ts';
import { SpendLedger } from '../../../proxy/spend/spendLedger.ts';
import { claudeCodeCli, installedVersion } from '../../support/clients/clientBinaries.ts';
import { createClientSandbox, offlineClientEnv, type ClientSandbox } from '../../support/clients/clientSandbox.ts';
import { runCli, transcript, type CliResult } from '../../support/clients/runCli.ts';
import { startHarness, type Harness, type HarnessOptions } from '../../support/proxyHarness.ts';
import { PLAIN_HINT } from '../../../proxy/contracts/cli.ts';

/**
 * Issue 18 items 5 and 12 with the real Claude Code: Airlock's own refusals and the open breaker make
 * it stop at once and print Airlock's message. Before, it retried a budget 429 ten times (150 s)
 * and waited out the breaker's Retry-After (96-102 s).
 */

const CLI_TIMEOUT_MS = 45_000;
const TEST_TIMEOUT_MS = 60_000;
const CLIENT_MODEL = 'claude-sonnet-4-5';
const PRICE = { model: 'deepseek-chat', inputPer1M: 1_000_000, outputPer1M: 1_000_000 };

let harness: Harness | null = null;
let sandbox: ClientSandbox;

beforeEach(async () => {
  sandbox = await createClientSandbox('claude-code');
});
afterEach(async () => {
  await sandbox.remove();
  await harness?.close();
  harness = null;
});

async function start(profile: HarnessOptions['profile']): Promise<Harness> {
  harness = await startHarness({
    profile: { modelRoutes: [{ pattern: 'claude-*', target: PRICE.model }], prices: [PRICE], ...profile },
    spendGate: createSpendGate({ commandHint: PLAIN_HINT, ledger: new SpendLedger(), clientBudget: () => undefined }),
  });
  return harness;
}

function runClaudePrint(proxyUrl: string): Promise<CliResult> {
  return runCli({
    cli: claudeCodeCli(),
    args: ['-p', 'Reply with the marker', '--model', CLIENT_MODEL, '--no-session-persistence'],
    cwd: sandbox.workDir,
    env: offlineClientEnv(sandbox.homeDir, {
      CLAUDE_CONFIG_DIR: `${sandbox.homeDir}/.claude`,
      ANTHROPIC_BASE_URL: proxyUrl,
      ANTHROPIC_API_KEY: 'alk_claude_code_client',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
    }),
    timeoutMs: CLI_TIMEOUT_MS,
  });
}

const endsOf = (proxy: Harness, errorClass: string) =>
  proxy.events.filter((event) => event.type === 'end' && event.errorClass === errorClass).length;

describe(`Claude Code ${installedVersion('@anthropic-ai/claude-code')} meets Airlock's refusals`, () => {
  it(
    'stops at the first budget refusal and prints what to raise',
    async () => {
      const proxy = await start({ budget: { dailyCredits: 0.5 } });
      const result = await runClaudePrint(proxy.proxy.url);
      expect(result.exitCode, transcript(result)).not.toBe(0);
      expect(`${result.stdout}${result.stderr}`).toMatch(/budget\.dailyCredits/);
      expect(endsOf(proxy, 'budget_exceeded')).toBe(1);
      expect(proxy.simulator.received).toHaveLength(0);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'stops at a rejected key, and at once on the next run, told which profile and how to fix it',
    async () => {
      const proxy = await start({});
      proxy.simulator.script({ kind: 'status', status: 401 });
      const rejected = await runClaudePrint(proxy.proxy.url);
      expect(rejected.exitCode, transcript(rejected)).not.toBe(0);
      expect(proxy.simulator.received).toHaveLength(1);

      const refused = await runClaudePrint(proxy.proxy.url);
      expect(refused.exitCode, transcript(refused)).not.toBe(0);
      expect(`${refused.stdout}${refused.stderr}`).toMatch(/key set test/);
      expect(endsOf(proxy, 'circuit_open')).toBe(1);
      expect(proxy.simulator.received).toHaveLength(1);
    },
    TEST_TIMEOUT_MS,
  );

  // vLLM's 400 for a context over the model's length (vllm#4667): Claude Code knows an overflow only
  // by Anthropic's "prompt is too long" and then says so, rather than printing the raw API error.
  it(
    'takes a chat gateway\'s context overflow for its own "Prompt is too long"',
    async () => {
      const proxy = await start({});
      const message = "This model's maximum context length is 32768 tokens. However, you requested 40000 tokens.";
      proxy.simulator.script({
        kind: 'status',
        status: 400,
        body: { object: 'error', message, type: 'BadRequestError', param: null, code: 400 },
      });
      const result = await runClaudePrint(proxy.proxy.url);
      expect(result.exitCode, transcript(result)).not.toBe(0);
      expect(`${result.stdout}${result.stderr}`).toMatch(/^Prompt is too long/m);
      expect(endsOf(proxy, 'bad_request')).toBe(1);
    },
    TEST_TIMEOUT_MS,
  );
});
