import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { explainError } from '../../../proxy/core/errorClass.ts';
import type { DialectName } from '../../simulator/dialects.ts';
import { runContinuePrint } from '../../support/clients/agentRuns.ts';
import { installedVersion } from '../../support/clients/clientBinaries.ts';
import { createClientSandbox, type ClientSandbox } from '../../support/clients/clientSandbox.ts';
import { settledExchanges } from '../../support/clients/exchanges.ts';
import { transcript, type CliResult } from '../../support/clients/runCli.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { findSentinel } from '../../support/sentinel.ts';

/**
 * The real Continue CLI (`cn -p`) through Airlock, as its Connect sets it up: an `openai` provider at
 * Airlock's /v1 with a client token. Continue streams chat completions with its tools, and retries by
 * itself (its SDK sends x-stainless-retry-count), so a failure reaches it at once, explained.
 */
const TEST_TIMEOUT_MS = 60_000;
const SETTLE_TIMEOUT_MS = 5_000;
const MODEL = 'gpt-4o-mini';
const PRICE = { model: MODEL, inputPer1M: 0.15, outputPer1M: 0.6 };
const PROMPT = 'Tell me a story';

let harness: Harness;
let sandbox: ClientSandbox;
beforeAll(async () => {
  harness = await startHarness({ profile: { prices: [PRICE] } });
});
afterAll(async () => {
  await harness.close();
});
beforeEach(async () => {
  harness.simulator.reset();
  harness.simulator.useDialect('seed');
  sandbox = await createClientSandbox('continue');
});
afterEach(async () => {
  await sandbox.remove();
});

function runContinue(): Promise<CliResult> {
  return runContinuePrint({ sandbox, proxyUrl: harness.proxy.url, token: 'alk_continue_client', model: MODEL, prompt: PROMPT });
}

const printed = (result: CliResult): string => `${result.stdout}${result.stderr}`;

describe(`Continue CLI ${installedVersion('@continuedev/cli')} through Airlock`, () => {
  it.each(['seed', 'new-api', 'vllm'] satisfies DialectName[])(
    'prints the streamed answer of a %s gateway, logged with its usage and cost, the key nowhere',
    async (dialect) => {
      harness.simulator.useDialect(dialect);
      const firstEventIndex = harness.events.length;
      const result = await runContinue();
      expect(result.exitCode, transcript(result)).toBe(0);
      expect(result.stdout).toContain(`Simulated reply to: ${PROMPT}`);
      const chats = harness.simulator.received.filter((request) => request.path === '/v1/chat/completions');
      expect(chats).toHaveLength(1);
      expect(JSON.parse(chats[0]!.body.toString()) as object).toMatchObject({ model: MODEL, stream: true });
      const [exchange] = await settledExchanges(harness, firstEventIndex, SETTLE_TIMEOUT_MS);
      expect(exchange?.end.usage).not.toBeNull();
      expect(exchange?.end.costCredits).toBeGreaterThan(0);
      expect(findSentinel(printed(result))).toBeNull();
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'shows the top-up message for an empty balance after one gateway request',
    async () => {
      harness.simulator.useDialect('openrouter');
      harness.simulator.script(...Array.from({ length: 8 }, () => ({ kind: 'quota' as const })));
      const result = await runContinue();
      expect(result.exitCode, transcript(result)).not.toBe(0);
      expect(printed(result)).toContain('Top up the balance');
      expect(harness.simulator.received).toHaveLength(1);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "recovers from the gateway's passing 500 as it does talking to the gateway, and prints the answer",
    async () => {
      // The OpenAI SDK inside Continue resends a 500 (twice at most); Continue's own outer retries,
      // which take a 500 only of type server_error, are not reached (DESIGN.md, Who retries).
      harness.simulator.script({ kind: 'status', status: 500 });
      const result = await runContinue();
      expect(result.exitCode, transcript(result)).toBe(0);
      expect(result.stdout).toContain(`Simulated reply to: ${PROMPT}`);
      expect(harness.simulator.received.filter((request) => request.path === '/v1/chat/completions')).toHaveLength(2);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'shows a stream cut before its end as Airlock explains it, and does not send it again',
    async () => {
      harness.simulator.script(...Array.from({ length: 8 }, () => ({ kind: 'cutAfter' as const, chunks: 2 })));
      const result = await runContinue();
      expect(printed(result), transcript(result)).toContain(explainError('stream_interrupted').meaning);
      expect(harness.simulator.received).toHaveLength(1);
    },
    TEST_TIMEOUT_MS,
  );
});
