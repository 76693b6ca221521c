import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { nativeAnswerBody, nativeStreamEvents } from '../../simulator/native.ts';
import type { Fault } from '../../simulator/types.ts';
import { runClaudeCodePrint } from '../../support/clients/agentRuns.ts';
import { installedVersion } from '../../support/clients/clientBinaries.ts';
import { createClientSandbox, type ClientSandbox } from '../../support/clients/clientSandbox.ts';
import { transcript } from '../../support/clients/runCli.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';

/**
 * The real Claude Code when its stream ends early (in order, without its finish) and the whole
 * answer it then asks for (the same request, not streamed) breaks too after its 200: the gateway
 * closes before the Content-Length it declared. The gateway ran and billed each of them. Pointed at
 * the gateway itself, Claude Code does not resend that whole answer (a reset one it does:
 * unhappyTurns.test.ts); through Airlock, which reads the whole body before its own headers go out
 * (translated or passed through), the failure was a 502 without `x-should-retry: false`, and Claude
 * Code sent the request again and again (seven runs billed within 45 s, probe B, 2026-11-29).
 */
const TEST_TIMEOUT_MS = 60_000;
const UPSTREAM_MODEL = 'gpt-4o-mini';
const MODEL = 'claude-sonnet-4-5';
/** More faults than any run takes: every request the tool makes meets the same failure. */
const FAULTS_PER_RUN = 12;

let translated: Harness;
/** Airlock passing Messages through to a gateway that speaks them; its simulator is also the gateway Claude Code reaches directly. */
let native: Harness;
let sandbox: ClientSandbox;

beforeAll(async () => {
  translated = await startHarness({
    profile: { protocolModes: { messages: 'translate' }, modelRoutes: [{ pattern: 'claude-*', target: UPSTREAM_MODEL }] },
  });
  native = await startHarness({ simulator: { nativeProtocols: ['messages'] }, profile: { protocolModes: { messages: 'native' } } });
});
afterAll(async () => {
  await translated.close();
  await native.close();
});
beforeEach(async () => {
  translated.simulator.reset();
  native.simulator.reset();
  sandbox = await createClientSandbox('broken-whole');
});
afterEach(async () => {
  await sandbox.remove();
});

const CHAT_WHOLE = JSON.stringify({
  id: 'chatcmpl-broken',
  object: 'chat.completion',
  created: 1,
  model: UPSTREAM_MODEL,
  choices: [{ index: 0, message: { role: 'assistant', content: 'Once upon a time there was' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 12, completion_tokens: 6, total_tokens: 18 },
});
const CHAT_STREAM_BEGUN = `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: UPSTREAM_MODEL, choices: [{ index: 0, delta: { content: 'Once upon ' }, finish_reason: null }] })}\n\n`;
const MESSAGES_WHOLE = JSON.stringify(nativeAnswerBody('messages', MODEL, 'broken'));
/** The answer's first events, then an end in order without its finish: Claude Code asks for the answer whole next. */
const MESSAGES_STREAM_BEGUN = nativeStreamEvents('messages', MODEL, 'broken').slice(0, 3).join('');

/** A stream ended early, then every whole answer closed after a third of its bytes. */
function faults(path: string, streamBegun: string, whole: string): Fault[] {
  const endedStream: Fault = { kind: 'text', path, status: 200, contentType: 'text/event-stream', text: streamBegun, chunked: true };
  const brokenWhole: Fault = {
    kind: 'text',
    path,
    status: 200,
    contentType: 'application/json',
    text: whole,
    closeAfterBytes: Math.floor(whole.length / 3),
  };
  return [endedStream, ...Array.from({ length: FAULTS_PER_RUN }, () => brokenWhole)];
}

/** Gateway requests behind one run of Claude Code, `harness`'s simulator meeting `script`; `direct`: pointed at that simulator itself. */
async function gatewayRequests(harness: Harness, script: Fault[], direct = false): Promise<number> {
  harness.simulator.reset();
  harness.simulator.script(...script);
  const proxyUrl = direct ? harness.simulator.baseUrl.replace(/\/v1$/, '') : harness.proxy.url;
  // The simulator takes its key as a Bearer token, which Claude Code sends for ANTHROPIC_AUTH_TOKEN.
  const claudeCodeEnv: Record<string, string> = direct ? { ANTHROPIC_AUTH_TOKEN: SENTINEL_KEY } : {};
  const result = await runClaudeCodePrint({
    sandbox,
    proxyUrl,
    token: 'alk_broken_whole',
    model: MODEL,
    prompt: 'Tell me a story',
    claudeCodeEnv,
  });
  expect(result.timedOut, transcript(result)).toBe(false);
  expect(result.exitCode, transcript(result)).not.toBe(0);
  return harness.simulator.received.length;
}

const nativeFaults = (): Fault[] => faults('/messages', MESSAGES_STREAM_BEGUN, MESSAGES_WHOLE);
const chatFaults = (): Fault[] => faults('/chat/completions', CHAT_STREAM_BEGUN, CHAT_WHOLE);

describe(`Claude Code ${installedVersion('@anthropic-ai/claude-code')} when the whole answer after a broken stream breaks too`, () => {
  it(
    'sends it no more often through Airlock, passed through or translated, than straight to the gateway',
    async () => {
      const direct = await gatewayRequests(native, nativeFaults(), true);
      const passedThrough = await gatewayRequests(native, nativeFaults());
      const translatedRequests = await gatewayRequests(translated, chatFaults());
      expect({ direct, passedThrough, translatedRequests }).toEqual({ direct, passedThrough: direct, translatedRequests: direct });
    },
    TEST_TIMEOUT_MS,
  );
});
