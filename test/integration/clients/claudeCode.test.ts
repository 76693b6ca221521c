import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DIALECTS as GATEWAY_DIALECTS, SEED_DIALECT } from '../../simulator/index.ts';
import type { Dialect } from '../../simulator/dialect.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { expectBilledTranslations, type TokenPrice } from '../../support/clients/billedExchanges.ts';
import { claudeCodeCli, installedVersion } from '../../support/clients/clientBinaries.ts';
import { createClientSandbox, offlineClientEnv, type ClientSandbox } from '../../support/clients/clientSandbox.ts';
import { settledExchanges } from '../../support/clients/exchanges.ts';
import { receivedChatRequests, toolResultFor } from '../../support/clients/receivedChat.ts';
import { runCli, transcript, type CliResult } from '../../support/clients/runCli.ts';

const CLI_TIMEOUT_MS = 45_000;
const TEST_TIMEOUT_MS = 60_000;
const SETTLE_TIMEOUT_MS = 5_000;
const CLIENT_TOKEN = 'alk_claude_code_client';
const CLIENT_MODEL = 'claude-sonnet-4-5';
const PRICE: TokenPrice = { model: 'deepseek-chat', inputPer1M: 0.5, outputPer1M: 2 };
/** A gateway whose streams end after the finish and usage chunks without `data: [DONE]`. */
const WITHOUT_DONE: Dialect = { ...SEED_DIALECT, name: 'seed without [DONE]', stream: { ...SEED_DIALECT.stream, sendDone: false } };
/** A gateway that puts a running usage count on every chunk (a cut stream's count is partial). */
const RUNNING_USAGE: Dialect = {
  ...SEED_DIALECT,
  name: 'seed with usage on every chunk',
  stream: { ...SEED_DIALECT.stream, usagePlacement: 'everyChunk' },
};
/** The gateways it is run against: the seed's, and real ones whose streams and ids differ (simulator/dialects.ts). */
const DIALECTS: Dialect[] = [GATEWAY_DIALECTS.seed, GATEWAY_DIALECTS['new-api'], GATEWAY_DIALECTS.vllm, WITHOUT_DONE, RUNNING_USAGE];

let harness: Harness;
let sandbox: ClientSandbox;

beforeAll(async () => {
  harness = await startHarness({
    profile: { modelRoutes: [{ pattern: 'claude-*', target: PRICE.model }], prices: [PRICE] },
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

const authStyles = [
  ['x-api-key', 'ANTHROPIC_API_KEY'],
  ['Bearer', 'ANTHROPIC_AUTH_TOKEN'],
] as const;

/** `claude -p` in print mode, offline, with a fresh config dir and nothing but Airlock to talk to. */
function runClaudePrint(authVariable: string, prompt: string, extraArgs: readonly string[] = []): Promise<CliResult> {
  return runCli({
    cli: claudeCodeCli(),
    args: ['-p', prompt, '--model', CLIENT_MODEL, '--no-session-persistence', ...extraArgs],
    cwd: sandbox.workDir,
    env: offlineClientEnv(sandbox.homeDir, {
      CLAUDE_CONFIG_DIR: `${sandbox.homeDir}/.claude`,
      ANTHROPIC_BASE_URL: harness.proxy.url,
      [authVariable]: CLIENT_TOKEN,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
    }),
    timeoutMs: CLI_TIMEOUT_MS,
  });
}

describe.each(DIALECTS)(
  `Claude Code ${installedVersion('@anthropic-ai/claude-code')} through Airlock to a Chat-Completions-only $name gateway`,
  (dialect) => {
    beforeAll(() => harness.simulator.useDialect(dialect));

    it.each(authStyles)(
      'prints the answer with %s auth, and the exchange is translated and billed',
      async (_style, authVariable) => {
        harness.simulator.script({ kind: 'reply', content: 'airlock-plain-answer' });
        const firstEventIndex = harness.events.length;

        const result = await runClaudePrint(authVariable, 'Reply with the marker');

        expect(result.exitCode, transcript(result)).toBe(0);
        expect(result.stdout.trim()).toBe('airlock-plain-answer');
        const exchanges = await settledExchanges(harness, firstEventIndex, SETTLE_TIMEOUT_MS);
        expect(exchanges.map(({ start }) => start.clientPath)).toEqual(['/v1/messages?beta=true']);
        expectBilledTranslations(exchanges, 'anthropic', PRICE);
        const [upstream] = receivedChatRequests(harness.simulator);
        expect(upstream).toMatchObject({ path: '/v1/chat/completions', authOk: true, xApiKey: undefined, model: PRICE.model });
      },
      TEST_TIMEOUT_MS,
    );

    it(
      'runs the Bash tool the model calls and sends its output back as a tool message',
      async () => {
        harness.simulator.script(
          {
            kind: 'reply',
            toolCalls: [
              { name: 'Bash', arguments: JSON.stringify({ command: "printf '%s-%s' airlock tool-ok", description: 'Print the marker' }) },
            ],
          },
          { kind: 'reply', content: 'final-answer-after-tool' },
        );
        const firstEventIndex = harness.events.length;

        const result = await runClaudePrint('ANTHROPIC_API_KEY', 'Print the marker with Bash', ['--allowedTools', 'Bash(printf:*)']);

        expect(result.exitCode, transcript(result)).toBe(0);
        expect(result.stdout.trim()).toBe('final-answer-after-tool');
        const [toolTurn, resultTurn, ...extra] = receivedChatRequests(harness.simulator);
        expect(extra).toEqual([]);
        expect(toolTurn?.toolNames).toContain('Bash');
        // Only a shell that ran the command joins the two printf arguments into the marker.
        expect(toolResultFor(resultTurn!, 'Bash')?.content).toContain('airlock-tool-ok');
        const exchanges = await settledExchanges(harness, firstEventIndex, SETTLE_TIMEOUT_MS);
        expect(exchanges).toHaveLength(2);
        expectBilledTranslations(exchanges, 'anthropic', PRICE);
      },
      TEST_TIMEOUT_MS,
    );

    it(
      'falls back to a non-streaming request when the stream breaks, and prints that answer',
      async () => {
        harness.simulator.script({ kind: 'cutAfter', chunks: 2 }, { kind: 'reply', content: 'answer-after-fallback' });
        const firstEventIndex = harness.events.length;

        const result = await runClaudePrint('ANTHROPIC_API_KEY', 'Reply with the marker');

        expect(result.exitCode, transcript(result)).toBe(0);
        expect(result.stdout.trim()).toBe('answer-after-fallback');
        const [broken, fallback, ...extra] = await settledExchanges(harness, firstEventIndex, SETTLE_TIMEOUT_MS);
        expect(extra).toEqual([]);
        expect(broken?.start.stream).toBe(true);
        expect(broken?.end).toMatchObject({ errorClass: 'stream_interrupted', usageSource: 'estimated' });
        expect(fallback?.start.stream).toBe(false);
        expectBilledTranslations([fallback!], 'anthropic', PRICE);
      },
      TEST_TIMEOUT_MS,
    );
  },
);

describe(`Claude Code ${installedVersion('@anthropic-ai/claude-code')} through Airlock to a reasoning model`, () => {
  beforeAll(() => harness.simulator.useDialect('vllm'));

  it(
    'shows the thinking the gateway streamed as reasoning_content as a thinking block',
    async () => {
      const reasoning = 'airlock-thinking-marker';
      harness.simulator.script({ kind: 'reply', content: 'airlock-plain-answer', reasoning });
      const result = await runClaudePrint('ANTHROPIC_API_KEY', 'Reply with the marker', ['--output-format', 'stream-json', '--verbose']);
      expect(result.exitCode, transcript(result)).toBe(0);
      const blocks = result.stdout
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { type: string; message?: { content?: { type: string; thinking?: string; text?: string }[] } })
        .filter((event) => event.type === 'assistant')
        .flatMap((event) => event.message?.content ?? []);
      expect(blocks).toContainEqual(expect.objectContaining({ type: 'thinking', thinking: reasoning }));
      expect(blocks).toContainEqual(expect.objectContaining({ type: 'text', text: 'airlock-plain-answer' }));
    },
    TEST_TIMEOUT_MS,
  );
});

/** A one-page PDF: Claude Code's Read tool sends a PDF whole, as a document block in a user message after the tool result. */
const ONE_PAGE_PDF = [
  '%PDF-1.4',
  '1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj',
  '2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj',
  '3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >> endobj',
  'trailer << /Root 1 0 R >>',
  '%%EOF',
].join('\n');

describe(`Claude Code ${installedVersion('@anthropic-ai/claude-code')} reading a PDF through Airlock's translation`, () => {
  beforeAll(() => harness.simulator.useDialect('seed'));

  it(
    // No fault: this guards it. A chat gateway has no part for a PDF, and a conversation without it would
    // have the model answer about a file it never saw.
    'is told the PDF cannot be translated, and the model is never sent the conversation without it',
    async () => {
      await writeFile(join(sandbox.workDir, 'report.pdf'), ONE_PAGE_PDF);
      harness.simulator.script(
        { kind: 'reply', toolCalls: [{ name: 'Read', arguments: JSON.stringify({ file_path: join(sandbox.workDir, 'report.pdf') }) }] },
        { kind: 'reply', content: 'answer-without-the-pdf' },
      );

      const result = await runClaudePrint('ANTHROPIC_API_KEY', 'Summarise report.pdf');

      expect(`${result.stdout}${result.stderr}`, transcript(result)).toMatch(/document blocks \(PDF\)/);
      expect(result.stdout).not.toContain('answer-without-the-pdf');
      expect(receivedChatRequests(harness.simulator)).toHaveLength(1);
    },
    TEST_TIMEOUT_MS,
  );
});
