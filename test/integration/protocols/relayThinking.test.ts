import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../simulator/index.ts';
import { litellmClaude, openrouterClaude } from '../../simulator/dialects.ts';
import { relayThinkingFields } from '../../simulator/relayThinking.ts';
import type { Harness } from '../../support/proxyHarness.ts';
import { REASONING_MODEL, sdkClients, startReasoningHarness } from '../../support/reasoningHarness.ts';

/**
 * Claude's thinking through a relay's chat completions API comes with signed blocks (LiteLLM's
 * `thinking_blocks`, OpenRouter's `reasoning_details`), which Claude needs back on the tool-call turn
 * they led to: LiteLLM passes on Anthropic's 400 without them, OpenRouter answers without thinking
 * (the simulator's litellm-claude and openrouter-claude dialects, test/simulator/relayThinking.ts,
 * with their sources). Claude Code hands a thinking block back with its signature, Codex a reasoning
 * item with its encrypted_content (asked for with `include: ["reasoning.encrypted_content"]`): the
 * blocks ride there and go back as they came, whether the first turn came streamed or whole.
 */
// Its thinking ends as the gateway key begins: the key guard holds that end back until the block's signature.
const PROMPT = 'List the files named sk-air';
const THINKING = `Thinking about: ${PROMPT}`;
const SHELL_CALL = { name: 'shell', arguments: '{"command":"ls"}' };
const RELAY_FIELDS = ['thinking_blocks', 'reasoning_details'];

let harness: Harness;

beforeAll(async () => {
  harness = await startReasoningHarness();
});
afterAll(async () => {
  await harness.close();
});
beforeEach(() => harness.simulator.reset());

const { anthropic, openai } = sdkClients(() => harness);

/** The messages of the last chat request the gateway got. */
function sentMessages(): Record<string, unknown>[] {
  return (JSON.parse(harness.simulator.received.at(-1)?.body.toString('utf8') ?? '{}') as { messages: Record<string, unknown>[] }).messages;
}

const sentToolCallTurn = (): Record<string, unknown> | undefined =>
  sentMessages().find((message) => message['role'] === 'assistant' && Array.isArray(message['tool_calls']));

const RESPONSES_TOOLS = [{ type: 'function' as const, name: 'shell', parameters: { type: 'object' }, strict: false }];

/** Codex's tool turn continued: the first answer's items handed back as they came, then the call's output. */
async function viaResponses(stream: boolean): Promise<OpenAI.Responses.Response> {
  harness.simulator.script({ kind: 'reply', toolCalls: [SHELL_CALL] });
  const request = {
    model: 'gpt-5-codex',
    input: PROMPT,
    tools: RESPONSES_TOOLS,
    store: false,
    include: ['reasoning.encrypted_content' as const],
  };
  const first = stream ? await openai().responses.stream(request).finalResponse() : await openai().responses.create(request);
  const call = first.output.find((item) => item.type === 'function_call');
  expect(call).toBeDefined();
  return openai().responses.create({
    ...request,
    input: [
      { role: 'user', content: PROMPT },
      ...(first.output as OpenAI.Responses.ResponseInputItem[]),
      { type: 'function_call_output', call_id: call?.type === 'function_call' ? call.call_id : '', output: 'a.txt' },
    ],
  });
}

const MESSAGES_TOOLS = [{ name: 'shell', input_schema: { type: 'object' as const } }];
const MESSAGES_REQUEST = { model: 'claude-sonnet-4-5', max_tokens: 64, tools: MESSAGES_TOOLS };

/** Claude Code's tool turn continued: the first answer's content handed back as it came, then the tool result. */
async function viaMessages(stream: boolean): Promise<Anthropic.Message> {
  harness.simulator.script({ kind: 'reply', toolCalls: [SHELL_CALL] });
  const request = { ...MESSAGES_REQUEST, messages: [{ role: 'user' as const, content: PROMPT }] };
  const first = stream ? await anthropic().messages.stream(request).finalMessage() : await anthropic().messages.create(request);
  const toolUse = first.content.find((block) => block.type === 'tool_use');
  expect(toolUse).toBeDefined();
  return anthropic().messages.create({
    ...request,
    messages: [
      { role: 'user', content: PROMPT },
      { role: 'assistant', content: first.content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse?.type === 'tool_use' ? toolUse.id : '', content: 'a.txt' }] },
    ],
  });
}

describe.each([
  ['LiteLLM', litellmClaude, 'thinking_blocks'],
  ['OpenRouter', openrouterClaude, 'reasoning_details'],
] as const)('a Claude tool turn continued through %s', (_name, dialect, field) => {
  beforeAll(() => harness.simulator.useDialect(dialect));
  const signedBlocks = (relayThinkingFields(dialect, REASONING_MODEL, THINKING) as Record<string, unknown>)[field];

  describe.each([false, true])('(first turn streamed: %s)', (stream) => {
    it('through Responses (as Codex sends it back) is taken, the thinking blocks back as they came', async () => {
      const next = await viaResponses(stream);
      expect(next.status).toBe('completed');
      expect(sentToolCallTurn()?.[field]).toEqual(signedBlocks);
      // Its thinking was not dropped: the model thought again.
      expect(next.output.some((item) => item.type === 'reasoning')).toBe(true);
    });

    it('through Messages (as Claude Code sends it back) is taken, the thinking blocks back as they came', async () => {
      const next = await viaMessages(stream);
      expect(next.stop_reason).toBe('end_turn');
      expect(sentToolCallTurn()?.[field]).toEqual(signedBlocks);
      expect(next.content.some((block) => block.type === 'thinking')).toBe(true);
    });
  });

  it("sends an earlier turn's blocks no more once the user wrote again", async () => {
    harness.simulator.script({ kind: 'reply', toolCalls: [SHELL_CALL] });
    const request = { ...MESSAGES_REQUEST, messages: [{ role: 'user' as const, content: PROMPT }] };
    const first = await anthropic().messages.create(request);
    const toolUse = first.content.find((block) => block.type === 'tool_use');
    const toolUseId = toolUse?.type === 'tool_use' ? toolUse.id : '';
    await anthropic().messages.create({
      ...request,
      messages: [
        { role: 'user', content: PROMPT },
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUseId, content: 'a.txt' }] },
        { role: 'assistant', content: 'There is a.txt.' },
        { role: 'user', content: 'And the hidden ones?' },
      ],
    });
    expect(sentToolCallTurn()).toBeDefined();
    expect(sentToolCallTurn()).not.toHaveProperty(field);
  });
});

describe('a Claude tool turn asked whole and streamed anyway by LiteLLM', () => {
  beforeAll(() => harness.simulator.useDialect(litellmClaude));

  it('is continued with the thinking blocks the stream carried, through Messages', async () => {
    const signed = relayThinkingFields(litellmClaude, REASONING_MODEL, THINKING) as { thinking_blocks: { signature: string }[] };
    const chunk = (delta: object, finishReason: string | null = null): string =>
      `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', model: 'deepseek-chat', choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`;
    const thinkingPiece = (thinking: string, signature: string | null) => ({
      reasoning_content: thinking,
      thinking_blocks: [{ type: 'thinking', thinking, signature }],
    });
    const call = { index: 0, id: 'call_1', type: 'function', function: { name: 'shell', arguments: SHELL_CALL.arguments } };
    const text = [
      chunk(thinkingPiece(THINKING.slice(0, 9), null)),
      chunk(thinkingPiece(THINKING.slice(9), null)),
      chunk(thinkingPiece('', signed.thinking_blocks[0]?.signature ?? '')),
      chunk({ tool_calls: [call] }),
      chunk({}, 'tool_calls'),
      'data: [DONE]\n\n',
    ].join('');
    harness.simulator.script({ kind: 'text', status: 200, text, contentType: 'text/event-stream' });
    const request = { ...MESSAGES_REQUEST, messages: [{ role: 'user' as const, content: PROMPT }] };
    const first = await anthropic().messages.create(request);
    const next = await anthropic().messages.create({
      ...request,
      messages: [
        { role: 'user', content: PROMPT },
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: 'a.txt' }] },
      ],
    });
    expect(next.stop_reason).toBe('end_turn');
    expect(sentToolCallTurn()?.['thinking_blocks']).toEqual(signed.thinking_blocks);
  });
});

describe('a tool turn continued on a gateway that signs no thinking', () => {
  beforeAll(() => harness.simulator.useDialect(DIALECTS.deepseek));

  it('is sent neither field, through Responses and Messages', async () => {
    expect((await viaResponses(true)).status).toBe('completed');
    expect(RELAY_FIELDS.some((relayField) => relayField in (sentToolCallTurn() ?? {}))).toBe(false);
    expect((await viaMessages(false)).stop_reason).toBe('end_turn');
    expect(RELAY_FIELDS.some((relayField) => relayField in (sentToolCallTurn() ?? {}))).toBe(false);
  });
});
