import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { explainError } from '../../../proxy/core/errorClass.ts';
import { STREAM_ENDED_EARLY_CODE } from '../../../proxy/core/errorExplanations.ts';
import type { DialectName } from '../../simulator/dialects.ts';
import { nativeStreamEvents, type NativeProtocol } from '../../simulator/native.ts';
import type { Fault } from '../../simulator/types.ts';
import { runClaudeCodePrint, runCodexExec, type AgentRun } from '../../support/clients/agentRuns.ts';
import { installedVersion } from '../../support/clients/clientBinaries.ts';
import { createClientSandbox, type ClientSandbox } from '../../support/clients/clientSandbox.ts';
import { settledExchanges, type Exchange } from '../../support/clients/exchanges.ts';
import { transcript, type CliResult } from '../../support/clients/runCli.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';

/**
 * The real Claude Code and Codex when the gateway fails partway, on translated routes (their protocol
 * to Chat Completions), each count of gateway requests set beside the same tool's against a gateway
 * that speaks its protocol natively: what the tool resends on its own is the same either way, and
 * Airlock adds no resend of its own. Each tool's own retries are on and few (Claude Code's
 * CLAUDE_CODE_MAX_RETRIES, Codex's request and stream retries), so a resend shows and a test stays short.
 */

const TEST_TIMEOUT_MS = 60_000;
const SETTLE_TIMEOUT_MS = 5_000;
const UPSTREAM_MODEL = 'gpt-4o-mini';
const PRICE = { model: UPSTREAM_MODEL, inputPer1M: 0.15, outputPer1M: 0.6 };
const CODEX_RETRIES = 2;
const CLAUDE_CODE_RETRIES = 1;
/** More faults than any run takes: every request the tool makes meets the same failure. */
const FAULTS_PER_RUN = 8;

let translated: Harness;
let native: Harness;
let sandbox: ClientSandbox;

beforeAll(async () => {
  const modelRoutes = [
    { pattern: 'claude-*', target: UPSTREAM_MODEL },
    { pattern: 'gpt-5*', target: UPSTREAM_MODEL },
  ];
  translated = await startHarness({
    profile: { protocolModes: { messages: 'translate', responses: 'translate' }, modelRoutes, prices: [PRICE] },
  });
  native = await startHarness({
    simulator: { nativeProtocols: ['messages', 'responses'] },
    profile: { protocolModes: { messages: 'native', responses: 'native' } },
  });
});
afterAll(async () => {
  await translated.close();
  await native.close();
});
beforeEach(async () => {
  translated.simulator.reset();
  native.simulator.reset();
  translated.simulator.useDialect('seed');
  native.simulator.useDialect('seed');
  sandbox = await createClientSandbox('unhappy');
});
afterEach(async () => {
  await sandbox.remove();
});

interface Tool {
  name: string;
  run(run: AgentRun): Promise<CliResult>;
  model: string;
  protocol: NativeProtocol;
  /** Gateway requests behind one failure that every request meets: the tool's first and its own resends. */
  requestsPerFailure: { brokenStream: number; refusal: number; emptyBalance: number };
  /** What the tool prints of an empty balance, when not Airlock's own words. */
  emptyBalancePrinted?: RegExp;
  /** What the tool prints of a context overflow: its own words for one. */
  overflowPrinted: RegExp;
}

const TOOLS: Tool[] = [
  {
    name: `Claude Code ${installedVersion('@anthropic-ai/claude-code')}`,
    run: (run) => runClaudeCodePrint({ ...run, claudeCodeEnv: { CLAUDE_CODE_MAX_RETRIES: String(CLAUDE_CODE_RETRIES) } }),
    model: 'claude-sonnet-4-5',
    protocol: 'messages',
    // A broken stream: the stream, then the same request not streamed, then its retry.
    requestsPerFailure: { brokenStream: 2 + CLAUDE_CODE_RETRIES, refusal: 1, emptyBalance: 1 },
    overflowPrinted: /^Prompt is too long/m,
  },
  {
    name: `Codex CLI ${installedVersion('@openai/codex')}`,
    run: (run) => runCodexExec({ ...run, codexProvider: { maxRetries: CODEX_RETRIES } }),
    model: 'gpt-5-codex',
    protocol: 'responses',
    // Codex sends a turn again after any status but 400, 401 and 429, as it does to OpenAI itself:
    // a final refusal reaches it as a 400 (clientRetries.ts finalAnswerStatus), and an empty balance as
    // OpenAI's 429 insufficient_quota to a Responses client, which it stops at and words itself.
    requestsPerFailure: { brokenStream: 1 + CODEX_RETRIES, refusal: 1, emptyBalance: 1 },
    emptyBalancePrinted: /Quota exceeded\. Check your plan and billing details/,
    overflowPrinted: /ran out of room in the model's context window/,
  },
];

interface Turn {
  result: CliResult;
  /** Requests that reached the gateway. */
  gatewayRequests: number;
  exchanges: Exchange[];
}

async function turn(harness: Harness, tool: Tool, faults: Fault[]): Promise<Turn> {
  harness.simulator.script(...faults);
  const firstEventIndex = harness.events.length;
  const result = await tool.run({
    sandbox,
    proxyUrl: harness.proxy.url,
    token: 'alk_unhappy_client',
    model: tool.model,
    prompt: 'Tell me a story',
  });
  expect(result.timedOut, transcript(result)).toBe(false);
  const exchanges = await settledExchanges(harness, firstEventIndex, SETTLE_TIMEOUT_MS);
  return { result, gatewayRequests: harness.simulator.received.length, exchanges };
}

const printed = (result: CliResult): string => `${result.stdout}${result.stderr}`;
const times = (fault: Fault): Fault[] => Array.from({ length: FAULTS_PER_RUN }, () => fault);

const chatChunk = (delta: Record<string, string>): string =>
  `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: UPSTREAM_MODEL, choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;
/** Some of the answer, no finish_reason and no [DONE]. */
const CHAT_TEXT = [
  chatChunk({ role: 'assistant', content: '' }),
  chatChunk({ content: 'Once upon ' }),
  chatChunk({ content: 'a time ' }),
].join('');
const CHAT_NEVER_SENT = chatChunk({ content: 'there was' });

/** The native answer's first events: its text begun, never finished. */
function nativeBegun(tool: Tool): string {
  const events = nativeStreamEvents(tool.protocol, tool.model, 'broken');
  return events.slice(0, tool.protocol === 'messages' ? 3 : 4).join('');
}
const nativeWhole = (tool: Tool): string => nativeStreamEvents(tool.protocol, tool.model, 'broken').join('');

type Break = [name: string, translatedFault: Fault, nativeFault: (tool: Tool) => Fault, explained: string];
const stream = { kind: 'text', status: 200, contentType: 'text/event-stream' } as const;
const BREAKS: Break[] = [
  [
    'ends in order without a finish or [DONE]',
    { ...stream, path: '/chat/completions', text: CHAT_TEXT, chunked: true },
    (tool) => ({ ...stream, path: `/${tool.protocol}`, text: nativeBegun(tool), chunked: true }),
    explainError('stream_interrupted', STREAM_ENDED_EARLY_CODE).meaning,
  ],
  [
    'is reset',
    { ...stream, path: '/chat/completions', text: CHAT_TEXT + CHAT_NEVER_SENT, resetAfterBytes: Buffer.byteLength(CHAT_TEXT) },
    (tool) => ({ ...stream, path: `/${tool.protocol}`, text: nativeWhole(tool), resetAfterBytes: Buffer.byteLength(nativeBegun(tool)) }),
    explainError('stream_interrupted').meaning,
  ],
];

describe.each(TOOLS)('$name when the gateway’s chat stream breaks after some text', (tool) => {
  it.each(BREAKS)(
    'and %s: resends no more than against a native gateway, prints the cause, and every row is the broken stream',
    async (_name, translatedFault, nativeFault, explained) => {
      const direct = await turn(native, tool, times(nativeFault(tool)));
      const through = await turn(translated, tool, times(translatedFault));

      expect(through.result.exitCode, transcript(through.result)).not.toBe(0);
      expect(direct.result.exitCode, transcript(direct.result)).not.toBe(0);
      expect(through.gatewayRequests).toBe(direct.gatewayRequests);
      expect(through.gatewayRequests).toBe(tool.requestsPerFailure.brokenStream);
      expect(printed(through.result)).toContain(explained);
      expect(through.exchanges.map(({ end }) => end.errorClass)).toEqual(through.exchanges.map(() => 'stream_interrupted'));
      // The streamed part is billed, estimated: the gateway reported no usage for it.
      expect(through.exchanges[0]?.end).toMatchObject({ usageSource: 'estimated', usage: { outputTokens: expect.any(Number) } });
    },
    TEST_TIMEOUT_MS,
  );
});

const OVERFLOW_WORDS = "This model's maximum context length is 32768 tokens. However, you requested 40000 tokens.";
const errorEvent = (error: object): string => `data: ${JSON.stringify({ error })}\n\n`;
type Overflow = [name: string, event: string];
const OVERFLOWS: Overflow[] = [
  // vLLM's error event: the status as its code (vllm-project/vllm entrypoints/openai serving_chat.py).
  [
    'vLLM’s, the status as its code',
    errorEvent({ object: 'error', message: OVERFLOW_WORDS, type: 'BadRequestError', param: null, code: 400 }),
  ],
  // OpenAI's own code and type for it (platform.openai.com/docs/guides/error-codes), passed on without its 400.
  [
    'OpenAI’s shape, no status',
    errorEvent({ message: OVERFLOW_WORDS, type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' }),
  ],
];

/** The native protocol's own overflow after the same begun answer: Anthropic's error event, the Responses API's response.failed. */
function nativeOverflow(tool: Tool): string {
  const sse = (name: string, data: object): string => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
  const failure =
    tool.protocol === 'messages'
      ? sse('error', {
          type: 'error',
          error: { type: 'invalid_request_error', message: 'prompt is too long: 40000 tokens > 32768 maximum' },
        })
      : sse('response.failed', {
          type: 'response.failed',
          response: {
            id: 'resp_overflow',
            object: 'response',
            status: 'failed',
            output: [],
            error: { code: 'context_length_exceeded', message: OVERFLOW_WORDS },
          },
        });
  return `${nativeBegun(tool)}${failure}`;
}

describe.each(TOOLS)('$name when a context overflow comes as an error event after some text', (tool) => {
  it.each(OVERFLOWS)(
    'in %s: says the prompt is too long, and resends it no more than to a native gateway',
    async (_name, event) => {
      // A request sent again (Claude Code's non-streaming fallback) is refused before any output.
      const refusedAgain = (path: string): Fault => ({
        kind: 'status',
        status: 400,
        path,
        body: { error: { message: OVERFLOW_WORDS, type: 'invalid_request_error', code: 'context_length_exceeded' } },
      });
      const direct = await turn(native, tool, [
        { ...stream, path: `/${tool.protocol}`, text: nativeOverflow(tool) },
        ...times(refusedAgain(`/${tool.protocol}`)),
      ]);
      const through = await turn(translated, tool, [
        { ...stream, path: '/chat/completions', text: `${CHAT_TEXT}${event}data: [DONE]\n\n` },
        ...times(refusedAgain('/chat/completions')),
      ]);

      expect(through.result.exitCode, transcript(through.result)).not.toBe(0);
      expect(printed(through.result)).toMatch(tool.overflowPrinted);
      expect(printed(direct.result)).toMatch(tool.overflowPrinted);
      expect(through.gatewayRequests).toBe(direct.gatewayRequests);
      // Claude Code sends the same request unstreamed once after any stream error, an overflow's too.
      expect(through.gatewayRequests).toBe(tool.protocol === 'messages' ? 2 : 1);
      expect(through.exchanges.map(({ end }) => end.errorClass)).toEqual(through.exchanges.map(() => 'bad_request'));
    },
    TEST_TIMEOUT_MS,
  );
});

type Refusal = [name: string, dialect: DialectName, fault: (path: string) => Fault, printed: RegExp, emptyBalance?: true];
const REFUSALS: Refusal[] = [
  ['OpenRouter’s 402 for an empty balance', 'openrouter', (path) => ({ kind: 'quota', path }), /Top up the balance/, true],
  [
    'new-api’s words for an empty balance with a 402',
    'new-api',
    (path) => ({
      kind: 'status',
      status: 402,
      path,
      body: { error: { message: '用户额度不足, 剩余额度: ＄0.000000', type: 'new_api_error', code: 'insufficient_user_quota' } },
    }),
    /Top up the balance/,
    true,
  ],
  ['new-api’s 403 for an empty balance', 'new-api', (path) => ({ kind: 'quota', path }), /Top up the balance/, true],
  [
    'a JSON 403 for a model the account may not use',
    'seed',
    (path) => ({
      kind: 'status',
      status: 403,
      path,
      body: { error: { message: 'Your account is not allowed to use this model.', type: 'permission_error', code: 'forbidden' } },
    }),
    /Your account is not allowed to use this model/,
  ],
  [
    'Cloudflare’s 403 block page',
    'seed',
    (path) => ({ kind: 'errorPage', status: 403, server: 'cloudflare', path }),
    /firewall|Cloudflare/,
  ],
];

describe.each(TOOLS)('$name refused by the gateway', (tool) => {
  it.each(REFUSALS)(
    'with %s: sends no more than to a native gateway and prints what to do',
    async (_name, dialect, fault, said, emptyBalance) => {
      native.simulator.useDialect(dialect);
      translated.simulator.useDialect(dialect);
      const direct = await turn(native, tool, times(fault(`/${tool.protocol}`)));
      const through = await turn(translated, tool, times(fault('/chat/completions')));

      expect(through.result.exitCode, transcript(through.result)).not.toBe(0);
      expect(through.gatewayRequests).toBeLessThanOrEqual(direct.gatewayRequests);
      expect(through.gatewayRequests).toBe(emptyBalance ? tool.requestsPerFailure.emptyBalance : tool.requestsPerFailure.refusal);
      expect(printed(through.result), transcript(through.result)).toMatch((emptyBalance && tool.emptyBalancePrinted) || said);
      expect(through.exchanges.every(({ end }) => end.usage === null && end.costCredits === null)).toBe(true);
    },
    TEST_TIMEOUT_MS,
  );
});
