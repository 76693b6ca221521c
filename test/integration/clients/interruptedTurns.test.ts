import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { runClaudeCodePrint, runCodexExec, type AgentRun } from '../../support/clients/agentRuns.ts';
import { installedVersion } from '../../support/clients/clientBinaries.ts';
import { createClientSandbox, type ClientSandbox } from '../../support/clients/clientSandbox.ts';
import { firstEventOf, settledExchanges } from '../../support/clients/exchanges.ts';
import { transcript, type CliResult } from '../../support/clients/runCli.ts';

/**
 * A user stops a turn mid-answer (Ctrl-C; Esc in Claude Code's window closes the stream the same
 * way). The gateway must see the request end at once, or the model keeps generating on the
 * user's money, and the row must say the client left and bill what streamed, estimated.
 */

const TEST_TIMEOUT_MS = 60_000;
const SETTLE_TIMEOUT_MS = 5_000;
const UPSTREAM_MODEL = 'gpt-4o-mini';
const PRICE = { model: UPSTREAM_MODEL, inputPer1M: 0.15, outputPer1M: 0.6 };
/** Credits are stored rounded to 6 decimals. */
const CREDIT_DIGITS_COMPARED = 5;

let harness: Harness;
let sandbox: ClientSandbox;

beforeAll(async () => {
  harness = await startHarness({
    profile: {
      modelRoutes: [
        { pattern: 'claude-*', target: UPSTREAM_MODEL },
        { pattern: 'gpt-5*', target: UPSTREAM_MODEL },
      ],
      prices: [PRICE],
    },
  });
});
afterAll(async () => {
  await harness.close();
});
beforeEach(async () => {
  harness.simulator.reset();
  sandbox = await createClientSandbox('interrupted');
});
afterEach(async () => {
  await sandbox.remove();
});

const chunk = (delta: Record<string, string>) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: UPSTREAM_MODEL, choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;

/** A chat stream whose model is still writing: three pieces of the answer, then nothing until the connection closes. */
function scriptAnswerStillStreaming(): void {
  const streamed = [
    chunk({ role: 'assistant', content: '' }),
    chunk({ content: 'Once upon ' }),
    chunk({ content: 'a time ' }),
    chunk({ content: 'there was' }),
  ].join('');
  const text = `${streamed}${chunk({ content: ' a part never sent' })}`;
  harness.simulator.script({
    kind: 'text',
    status: 200,
    contentType: 'text/event-stream',
    text,
    stallAfterBytes: Buffer.byteLength(streamed),
  });
}

type AgentCli = [name: string, run: (run: AgentRun) => Promise<CliResult>, model: string];
const CLIENTS: AgentCli[] = [
  [`Claude Code ${installedVersion('@anthropic-ai/claude-code')}`, runClaudeCodePrint, 'claude-sonnet-4-5'],
  [`Codex CLI ${installedVersion('@openai/codex')}`, runCodexExec, 'gpt-5-codex'],
];

describe.each(CLIENTS)('%s interrupted mid-answer through Airlock', (_name, runAgent, model) => {
  it(
    'ends the gateway request at once, and the row is the client’s abort billed for what streamed, estimated',
    async () => {
      scriptAnswerStillStreaming();
      const firstEventIndex = harness.events.length;
      const result = await runAgent({
        sandbox,
        proxyUrl: harness.proxy.url,
        token: 'alk_interrupted_client',
        model,
        prompt: 'Tell me a story',
        interruptWhen: firstEventOf(harness, firstEventIndex, 'delta', SETTLE_TIMEOUT_MS),
      });
      expect(result.timedOut, transcript(result)).toBe(false);

      await harness.simulator.waitForClose(0, SETTLE_TIMEOUT_MS);
      expect(harness.simulator.received).toHaveLength(1);
      const [interrupted, ...others] = await settledExchanges(harness, firstEventIndex, SETTLE_TIMEOUT_MS);
      expect(others).toEqual([]);
      expect(interrupted?.end).toMatchObject({ errorClass: 'client_aborted', usageSource: 'estimated' });
      const inputTokens = interrupted?.end.usage?.inputTokens ?? 0;
      const outputTokens = interrupted?.end.usage?.outputTokens ?? 0;
      expect(inputTokens).toBeGreaterThan(0);
      expect(outputTokens).toBeGreaterThan(0);
      const expectedCredits = (inputTokens * PRICE.inputPer1M + outputTokens * PRICE.outputPer1M) / 1_000_000;
      expect(interrupted?.end.costCredits).toBeCloseTo(expectedCredits, CREDIT_DIGITS_COMPARED);
    },
    TEST_TIMEOUT_MS,
  );
});
