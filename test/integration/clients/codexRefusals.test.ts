import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PLAIN_HINT } from '../../../proxy/contracts/cli.ts';
import { createSpendGate } from '../../../proxy/spend/spendGate.ts';
import { SpendLedger } from '../../../proxy/spend/spendLedger.ts';
import type { Fault } from '../../simulator/types.ts';
import { runCodexExec } from '../../support/clients/agentRuns.ts';
import { installedVersion } from '../../support/clients/clientBinaries.ts';
import { createClientSandbox, type ClientSandbox } from '../../support/clients/clientSandbox.ts';
import { settledExchanges } from '../../support/clients/exchanges.ts';
import { transcript } from '../../support/clients/runCli.ts';
import { startHarness, type Harness, type HarnessOptions } from '../../support/proxyHarness.ts';

/**
 * The real Codex at a final answer, its own retries on (its default is five): Codex reads no
 * `x-should-retry` and resends after any status but 400, 401 and 429, so a budget cap's 402 came
 * back to Airlock 1 + retries times (six over about 8.5 s by default, "Reconnecting... n/5" on its
 * screen) before it printed the cause. Answered as a 400, it stops at the first and prints it.
 */

const TEST_TIMEOUT_MS = 60_000;
const SETTLE_TIMEOUT_MS = 5_000;
const UPSTREAM_MODEL = 'gpt-4o-mini';
const CODEX_RETRIES = 2;

let harness: Harness | null = null;
let sandbox: ClientSandbox;

beforeEach(async () => {
  sandbox = await createClientSandbox('codex-refusals');
});
afterEach(async () => {
  await sandbox.remove();
  await harness?.close();
  harness = null;
});

async function start(profile: HarnessOptions['profile']): Promise<Harness> {
  harness = await startHarness({
    profile: {
      protocolModes: { responses: 'translate' },
      modelRoutes: [{ pattern: 'gpt-5*', target: UPSTREAM_MODEL }],
      ...profile,
    },
    spendGate: createSpendGate({ commandHint: PLAIN_HINT, ledger: new SpendLedger(), clientBudget: () => undefined }),
  });
  return harness;
}

type Case = [name: string, profile: HarnessOptions['profile'], faults: Fault[], printed: RegExp, errorClass: string, gatewayPosts: number];
const CASES: Case[] = [
  [
    'a budget cap the request would cross (402 to other clients)',
    { prices: [{ model: UPSTREAM_MODEL, inputPer1M: 1_000_000, outputPer1M: 1_000_000 }], budget: { dailyCredits: 0.5 } },
    [],
    /budget\.dailyCredits/,
    'budget_exceeded',
    0,
  ],
  [
    'a model the gateway does not know (404 to other clients)',
    {},
    Array.from({ length: 1 + CODEX_RETRIES }, () => ({
      kind: 'status' as const,
      status: 404,
      path: '/chat/completions',
      body: { error: { message: `The model '${UPSTREAM_MODEL}' does not exist`, type: 'invalid_request_error', code: 'model_not_found' } },
    })),
    /does not exist/,
    'model_not_found',
    1,
  ],
];

describe(`Codex CLI ${installedVersion('@openai/codex')} at a final answer`, () => {
  it.each(CASES)(
    'at %s: stops at the first and prints the cause',
    async (_name, profile, faults, printed, errorClass, gatewayPosts) => {
      const proxy = await start(profile);
      proxy.simulator.script(...faults);
      const result = await runCodexExec({
        sandbox,
        proxyUrl: proxy.proxy.url,
        token: 'alk_codex_client',
        model: 'gpt-5-codex',
        prompt: 'Reply',
        codexProvider: { maxRetries: CODEX_RETRIES },
      });
      expect(result.exitCode, transcript(result)).not.toBe(0);
      expect(`${result.stdout}${result.stderr}`).toMatch(printed);
      expect(`${result.stdout}${result.stderr}`).not.toMatch(/Reconnecting/);
      const exchanges = await settledExchanges(proxy, 0, SETTLE_TIMEOUT_MS);
      expect(exchanges.map(({ end }) => [end.status, end.errorClass])).toEqual([[400, errorClass]]);
      // Airlock's own look at the gateway's model list after a model_not_found is not a resend.
      expect(proxy.simulator.received.filter(({ method }) => method === 'POST')).toHaveLength(gatewayPosts);
    },
    TEST_TIMEOUT_MS,
  );
});
