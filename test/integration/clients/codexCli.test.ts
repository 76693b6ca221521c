import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { explainError } from '../../../proxy/core/errorClass.ts';
import { STREAM_ENDED_EARLY_CODE } from '../../../proxy/core/errorExplanations.ts';
import { DIALECTS as GATEWAY_DIALECTS, SEED_DIALECT } from '../../simulator/index.ts';
import type { Dialect } from '../../simulator/dialect.ts';
import { NATIVE_TEXT, NATIVE_USAGE, nativeStreamEvents } from '../../simulator/native.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { expectBilledTranslations, type TokenPrice } from '../../support/clients/billedExchanges.ts';
import { installedVersion } from '../../support/clients/clientBinaries.ts';
import { createClientSandbox, type ClientSandbox } from '../../support/clients/clientSandbox.ts';
import { settledExchanges } from '../../support/clients/exchanges.ts';
import { receivedChatRequests, toolResultFor } from '../../support/clients/receivedChat.ts';
import { runCodexExec, type AgentRun } from '../../support/clients/agentRuns.ts';
import { startHeaderTap } from '../../support/clients/headerTap.ts';
import { transcript, type CliResult } from '../../support/clients/runCli.ts';

const TEST_TIMEOUT_MS = 60_000;
const SETTLE_TIMEOUT_MS = 5_000;
const CLIENT_MODEL = 'gpt-5-codex';
const PRICE: TokenPrice = { model: 'gpt-4o-mini', inputPer1M: 0.15, outputPer1M: 0.6 };
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
    profile: { modelRoutes: [{ pattern: 'gpt-5*', target: PRICE.model }], prices: [PRICE] },
  });
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

/** `codex exec` with a fresh CODEX_HOME whose only provider is Airlock (or `proxyUrl`); shell commands run read-only sandboxed. */
function runCodex(
  prompt: string,
  options: { proxyUrl?: string; extraArgs?: readonly string[]; codexProvider?: AgentRun['codexProvider'] } = {},
): Promise<CliResult> {
  return runCodexExec({
    sandbox,
    proxyUrl: options.proxyUrl ?? harness.proxy.url,
    token: 'alk_codex_client',
    model: CLIENT_MODEL,
    prompt,
    ...(options.extraArgs ? { extraArgs: options.extraArgs } : {}),
    ...(options.codexProvider ? { codexProvider: options.codexProvider } : {}),
  });
}

describe.each(DIALECTS)(
  `Codex CLI ${installedVersion('@openai/codex')} through Airlock to a Chat-Completions-only $name gateway`,
  (dialect) => {
    beforeAll(() => harness.simulator.useDialect(dialect));

    it(
      'prints the answer of a translated Responses stream, and the exchange is billed',
      async () => {
        harness.simulator.script({ kind: 'reply', content: 'airlock-codex-answer' });
        const firstEventIndex = harness.events.length;

        const result = await runCodex('Reply with the marker');

        expect(result.exitCode, transcript(result)).toBe(0);
        expect(result.stdout.trim()).toBe('airlock-codex-answer');
        const exchanges = await settledExchanges(harness, firstEventIndex, SETTLE_TIMEOUT_MS);
        expect(exchanges.map(({ start }) => [start.clientPath, start.stream])).toEqual([['/v1/responses', true]]);
        expectBilledTranslations(exchanges, 'responses', PRICE);
        const [upstream] = receivedChatRequests(harness.simulator);
        expect(upstream).toMatchObject({ path: '/v1/chat/completions', authOk: true, model: PRICE.model });
      },
      TEST_TIMEOUT_MS,
    );

    it(
      'runs the exec_command tool the model calls and sends its output back as a tool message',
      async () => {
        harness.simulator.script(
          {
            kind: 'reply',
            toolCalls: [{ name: 'exec_command', arguments: JSON.stringify({ cmd: "printf '%s-%s' airlock tool-ok", login: false }) }],
          },
          { kind: 'reply', content: 'final-answer-after-tool' },
        );
        const firstEventIndex = harness.events.length;

        const result = await runCodex('Print the marker with a shell command');

        expect(result.exitCode, transcript(result)).toBe(0);
        expect(result.stdout.trim()).toBe('final-answer-after-tool');
        const [toolTurn, resultTurn, ...extra] = receivedChatRequests(harness.simulator);
        expect(extra).toEqual([]);
        expect(toolTurn?.toolNames).toContain('exec_command');
        // Only a shell that ran the command joins the two printf arguments into the marker.
        expect(toolResultFor(resultTurn!, 'exec_command')?.content).toContain('airlock-tool-ok');
        const exchanges = await settledExchanges(harness, firstEventIndex, SETTLE_TIMEOUT_MS);
        expect(exchanges).toHaveLength(2);
        expectBilledTranslations(exchanges, 'responses', PRICE);
      },
      TEST_TIMEOUT_MS,
    );

    it(
      'ends with the error when the upstream stream breaks, never with a made-up answer',
      async () => {
        harness.simulator.script({ kind: 'cutAfter', chunks: 2 });
        const firstEventIndex = harness.events.length;

        const result = await runCodex('Reply with the marker');

        expect(result.exitCode, transcript(result)).not.toBe(0);
        expect(result.stdout.trim()).toBe('');
        // The cause and the fix, as a native client gets them (Codex prints the failed response's message).
        expect(result.stderr).toContain(explainError('stream_interrupted').meaning);
        const exchanges = await settledExchanges(harness, firstEventIndex, SETTLE_TIMEOUT_MS);
        expect(exchanges.map(({ end }) => end.errorClass)).toEqual(['stream_interrupted']);
      },
      TEST_TIMEOUT_MS,
    );
  },
);

describe(`Codex CLI ${installedVersion('@openai/codex')} through Airlock to a reasoning model`, () => {
  beforeAll(() => harness.simulator.useDialect('vllm'));

  it(
    'shows the thinking the gateway streamed as reasoning_content',
    async () => {
      const reasoning = 'airlock-thinking-marker';
      harness.simulator.script({ kind: 'reply', content: 'airlock-codex-answer', reasoning });
      const result = await runCodex('Reply with the marker', { extraArgs: ['--json'] });
      expect(result.exitCode, transcript(result)).toBe(0);
      const items = result.stdout
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { type: string; item?: { type: string; text?: string } });
      const completed = items.filter((event) => event.type === 'item.completed').map((event) => event.item);
      expect(completed).toContainEqual(expect.objectContaining({ type: 'reasoning', text: expect.stringContaining(reasoning) }));
      expect(completed.at(-1)).toMatchObject({ type: 'agent_message', text: 'airlock-codex-answer' });
    },
    TEST_TIMEOUT_MS,
  );
});

// Codex groups its sub-agent tools in a Responses `namespace` tool (multi_agent_v1, sent by default
// since openai/codex#23475) and routes a call only by its `namespace` and bare `name` together
// (https://github.com/butterbase-ai/butterbase/pull/134, https://github.com/JiuliNuoyi/CodexRosetta/pull/11).
describe(`Codex CLI ${installedVersion('@openai/codex')} sub-agent tools through Airlock's translation`, () => {
  beforeAll(() => harness.simulator.useDialect('seed'));

  it(
    "offers its namespaced tools as chat functions, and the model's call of one reaches the tool",
    async () => {
      const waitAgent = 'multi_agent_v1__wait_agent';
      harness.simulator.script(
        { kind: 'reply', toolCalls: [{ name: waitAgent, arguments: JSON.stringify({ targets: ['no-such-agent'] }) }] },
        { kind: 'reply', content: 'final-answer-after-wait' },
      );

      const result = await runCodex('Wait for the sub-agent');

      expect(result.exitCode, transcript(result)).toBe(0);
      expect(result.stdout.trim()).toBe('final-answer-after-wait');
      const [toolTurn, resultTurn, ...extra] = receivedChatRequests(harness.simulator);
      expect(extra).toEqual([]);
      expect(toolTurn?.toolNames).toEqual(expect.arrayContaining(['multi_agent_v1__spawn_agent', waitAgent, 'exec_command']));
      for (const name of toolTurn?.toolNames ?? []) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      // Codex answers a call it cannot route with "unsupported call: <name>" as the tool's output.
      const output = toolResultFor(resultTurn!, waitAgent)?.content;
      expect(output).toBeDefined();
      expect(output).not.toContain('unsupported call');
    },
    TEST_TIMEOUT_MS,
  );
});

describe(`Codex CLI ${installedVersion('@openai/codex')} asking for structured output through Airlock's translation`, () => {
  beforeAll(() => harness.simulator.useDialect('seed'));

  // `codex exec --output-schema` asks for the final answer as JSON matching the schema (text.format
  // json_schema); the chat form of that is response_format json_schema (platform.openai.com structured outputs).
  it(
    'sends the schema on as a json_schema response_format',
    async () => {
      const schema = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'], additionalProperties: false };
      const schemaPath = join(sandbox.workDir, 'schema.json');
      await writeFile(schemaPath, JSON.stringify(schema));
      harness.simulator.script({ kind: 'reply', content: '{"ok":true}' });

      const result = await runCodex('Answer in JSON', { extraArgs: ['--output-schema', schemaPath] });

      expect(result.exitCode, transcript(result)).toBe(0);
      expect(result.stdout.trim()).toBe('{"ok":true}');
      const sent = JSON.parse(harness.simulator.received[0]!.body.toString('utf8')) as { response_format?: unknown };
      expect(sent.response_format).toMatchObject({ type: 'json_schema', json_schema: { schema } });
    },
    TEST_TIMEOUT_MS,
  );
});

// Codex tries the Responses API over a WebSocket first when its provider supports one (the built-in
// OpenAI provider does, so `openai_base_url` pointed at Airlock does too). It retries a failed
// handshake like a broken stream and goes over to HTTP at once only on a 426 (openai/codex
// codex-rs/core/tests/suite: websocket_fallback_switches_to_http_on_upgrade_required_connect).
describe(`Codex CLI ${installedVersion('@openai/codex')} with its WebSocket transport on`, () => {
  beforeAll(() => harness.simulator.useDialect('seed'));

  it(
    'is told once that Airlock speaks HTTP, never sends the handshake to the gateway, and answers over HTTP',
    async () => {
      harness.simulator.script({ kind: 'reply', content: 'airlock-codex-answer' });
      const tap = await startHeaderTap(harness.proxy.url);
      const firstEventIndex = harness.events.length;
      try {
        const result = await runCodex('Reply with the marker', {
          proxyUrl: tap.url,
          codexProvider: { supportsWebsockets: true, maxRetries: 2 },
        });
        expect(result.exitCode, transcript(result)).toBe(0);
        expect(result.stdout.trim()).toBe('airlock-codex-answer');
        expect(tap.answers.map(({ method, path, status }) => [method, path, status])).toEqual([
          ['GET', '/v1/responses', 426],
          ['POST', '/v1/responses', 200],
        ]);
        // RFC 9110 section 15.5.22: a 426 names the protocol to use in Upgrade (section 7.8: with Connection: Upgrade).
        expect(tap.answers[0]?.headers).toMatchObject({ upgrade: 'HTTP/1.1', connection: expect.stringMatching(/upgrade/i) });
      } finally {
        await tap.close();
      }
      expect(harness.simulator.received.map(({ method, path }) => [method, path])).toEqual([['POST', '/v1/chat/completions']]);
      const exchanges = await settledExchanges(harness, firstEventIndex, SETTLE_TIMEOUT_MS);
      expect(exchanges.map(({ start }) => [start.method, start.clientPath])).toEqual([['POST', '/v1/responses']]);
    },
    TEST_TIMEOUT_MS,
  );
});

describe(`Codex CLI ${installedVersion('@openai/codex')} through Airlock to a gateway that speaks Responses natively`, () => {
  let native: Harness;
  beforeAll(async () => {
    native = await startHarness({
      // The gateway ends its response only after the client has gone: Codex closes at response.completed.
      simulator: { nativeProtocols: ['responses'], holdNativeStreamsOpen: true },
      profile: { protocolModes: { messages: 'translate', responses: 'native' }, prices: [{ ...PRICE, model: CLIENT_MODEL }] },
    });
  });
  afterAll(async () => {
    await native.close();
  });

  it(
    'prints the native answer, and the turn is logged a success with the usage the gateway reported',
    async () => {
      const firstEventIndex = native.events.length;
      const result = await runCodex('Reply with the marker', { proxyUrl: native.proxy.url });
      expect(result.exitCode, transcript(result)).toBe(0);
      expect(result.stdout.trim()).toBe(NATIVE_TEXT);
      const exchanges = await settledExchanges(native, firstEventIndex, SETTLE_TIMEOUT_MS);
      expect(exchanges.map(({ start }) => [start.clientPath, start.protocolMode])).toEqual([['/v1/responses', 'native']]);
      expect(exchanges[0]?.end).toMatchObject({
        status: 200,
        errorClass: null,
        usage: { inputTokens: NATIVE_USAGE.inputTokens, outputTokens: NATIVE_USAGE.outputTokens },
        usageSource: 'reported',
      });
    },
    TEST_TIMEOUT_MS,
  );

  // Codex reads a stream's failure only from response.failed and skips an `error` event
  // (codex-rs/codex-api/src/sse/responses.rs): the native break must say why in that frame too.
  it(
    'prints the cause of a native stream that breaks, not only that it closed early',
    async () => {
      const events = nativeStreamEvents('responses', CLIENT_MODEL, 'broken');
      const text = events.slice(0, 4).join('');
      native.simulator.script({ kind: 'text', status: 200, contentType: 'text/event-stream', text, resetAfterBytes: text.length });
      const firstEventIndex = native.events.length;
      const result = await runCodex('Reply with the marker', { proxyUrl: native.proxy.url });
      expect(result.exitCode, transcript(result)).not.toBe(0);
      // Its whole text came before the connection closed: the gateway ended it early, and no timeout of Airlock's did.
      expect(result.stderr).toContain(explainError('stream_interrupted', STREAM_ENDED_EARLY_CODE).meaning);
      const exchanges = await settledExchanges(native, firstEventIndex, SETTLE_TIMEOUT_MS);
      expect(exchanges.map(({ end }) => end.errorClass)).toEqual(['stream_interrupted']);
    },
    TEST_TIMEOUT_MS,
  );
});
