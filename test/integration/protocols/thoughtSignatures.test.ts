import type OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../simulator/index.ts';
import { thoughtSignatureFor } from '../../simulator/thoughtSignatures.ts';
import type { Harness } from '../../support/proxyHarness.ts';
import { sdkClients, startReasoningHarness } from '../../support/reasoningHarness.ts';

/**
 * Gemini 3 signs a step's first function call and refuses the next turn when the call comes back
 * without its signature (the simulator's gemini dialect, test/simulator/thoughtSignatures.ts, with
 * its sources). Claude Code and Codex have no field for it: their second tool turn must still be
 * taken, whether the first came streamed or whole, and a gateway that signs nothing is sent nothing.
 */
const PROMPT = 'List the files.';
const SHELL_CALL = { name: 'shell', arguments: '{"command":"ls"}' };

let harness: Harness;

beforeAll(async () => {
  harness = await startReasoningHarness();
});
afterAll(async () => {
  await harness.close();
});
beforeEach(() => harness.simulator.reset());

const { anthropic, openai } = sdkClients(() => harness);

type SentMessage = { role: string; tool_calls?: { id: string; extra_content?: unknown }[]; tool_call_id?: string };

/** The messages of the last chat request the gateway got. */
function sentMessages(): SentMessage[] {
  return (JSON.parse(harness.simulator.received.at(-1)?.body.toString('utf8') ?? '{}') as { messages: SentMessage[] }).messages;
}

/** The call the gateway gave and the tool result sent for it, as the gateway got them back. */
function sentCallAndResult(): { call: { id: string; extra_content?: unknown } | undefined; resultFor: string | undefined } {
  const messages = sentMessages();
  return {
    call: messages.find((message) => message.role === 'assistant')?.tool_calls?.[0],
    resultFor: messages.find((message) => message.role === 'tool')?.tool_call_id,
  };
}

async function viaResponses(stream: boolean): Promise<OpenAI.Responses.Response> {
  const tools = [{ type: 'function' as const, name: 'shell', parameters: { type: 'object' }, strict: false }];
  harness.simulator.script({ kind: 'reply', toolCalls: [SHELL_CALL] });
  const request = { model: 'gpt-5-codex', input: PROMPT, tools, store: false };
  const first = stream ? await openai().responses.stream(request).finalResponse() : await openai().responses.create(request);
  const call = first.output.find((item) => item.type === 'function_call');
  expect(call).toBeDefined();
  return openai().responses.create({
    model: 'gpt-5-codex',
    tools,
    store: false,
    input: [
      { role: 'user', content: PROMPT },
      ...(first.output as OpenAI.Responses.ResponseInputItem[]),
      { type: 'function_call_output', call_id: call?.type === 'function_call' ? call.call_id : '', output: 'a.txt' },
    ],
  });
}

async function viaMessages(stream: boolean): Promise<string | null> {
  const tools = [{ name: 'shell', input_schema: { type: 'object' as const } }];
  harness.simulator.script({ kind: 'reply', toolCalls: [SHELL_CALL] });
  const request = { model: 'claude-sonnet-4-5', max_tokens: 64, tools, messages: [{ role: 'user' as const, content: PROMPT }] };
  const first = stream ? await anthropic().messages.stream(request).finalMessage() : await anthropic().messages.create(request);
  const toolUse = first.content.find((block) => block.type === 'tool_use');
  expect(toolUse).toBeDefined();
  const next = await anthropic().messages.create({
    ...request,
    messages: [
      { role: 'user', content: PROMPT },
      { role: 'assistant', content: first.content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse?.type === 'tool_use' ? toolUse.id : '', content: 'a.txt' }] },
    ],
  });
  return next.stop_reason;
}

describe.each([false, true])('a tool turn continued on Gemini (first turn streamed: %s)', (stream) => {
  beforeAll(() => harness.simulator.useDialect(DIALECTS.gemini));

  it('through Responses (as Codex sends it back) is taken, the call signed as it was given', async () => {
    expect((await viaResponses(stream)).status).toBe('completed');
    const { call, resultFor } = sentCallAndResult();
    expect(call?.extra_content).toEqual({ google: { thought_signature: thoughtSignatureFor(String(call?.id)) } });
    expect(resultFor).toBe(call?.id);
  });

  it('through Messages (as Claude Code sends it back) is taken, the call signed as it was given', async () => {
    expect(await viaMessages(stream)).toBe('end_turn');
    const { call, resultFor } = sentCallAndResult();
    expect(call?.extra_content).toEqual({ google: { thought_signature: thoughtSignatureFor(String(call?.id)) } });
    expect(resultFor).toBe(call?.id);
  });
});

describe('a tool turn continued on a gateway that signs nothing', () => {
  beforeAll(() => harness.simulator.useDialect(DIALECTS.openai));

  it('is sent no signature field, through Responses and Messages', async () => {
    expect((await viaResponses(true)).status).toBe('completed');
    expect(sentCallAndResult().call).not.toHaveProperty('extra_content');
    expect(await viaMessages(false)).toBe('end_turn');
    const { call, resultFor } = sentCallAndResult();
    expect(call).not.toHaveProperty('extra_content');
    expect(resultFor).toBe(call?.id);
  });
});
