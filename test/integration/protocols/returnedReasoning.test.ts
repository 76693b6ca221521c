import type OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../simulator/index.ts';
import type { Harness } from '../../support/proxyHarness.ts';
import { sdkClients, startReasoningHarness } from '../../support/reasoningHarness.ts';

/**
 * A tool-call turn's thinking, handed back by the client as it got it, goes back to the gateway
 * only where it came as `reasoning_content`: DeepSeek's thinking mode refuses the next turn
 * without it, Cerebras (whose thinking comes as `reasoning`) refuses any turn with it. Both
 * dialects are the simulator's, with their sources (test/simulator/dialects.ts).
 */
const PROMPT = 'List the files.';
const THINKING = `Thinking about: ${PROMPT}`;
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

/** The assistant tool-call turn of the last chat request the gateway got. */
function sentToolCallTurn(): Record<string, unknown> | undefined {
  const body = JSON.parse(harness.simulator.received.at(-1)?.body.toString('utf8') ?? '{}') as { messages: Record<string, unknown>[] };
  return body.messages.find((message) => message['role'] === 'assistant' && Array.isArray(message['tool_calls']));
}

describe.each([
  ['deepseek', DIALECTS.deepseek, THINKING],
  ['cerebras', DIALECTS.cerebras, undefined],
])('a tool-call turn continued on %s', (_name, dialect, returnedThinking) => {
  beforeAll(() => harness.simulator.useDialect(dialect));

  it('through Responses (as Codex sends it back) is taken', async () => {
    const tools = [{ type: 'function' as const, name: 'shell', parameters: { type: 'object' }, strict: false }];
    harness.simulator.script({ kind: 'reply', toolCalls: [SHELL_CALL] });
    const stream = openai().responses.stream({ model: 'gpt-5-codex', input: PROMPT, tools, store: false });
    const first = await stream.finalResponse();
    const call = first.output.find((item) => item.type === 'function_call');
    expect(call).toBeDefined();
    const next = await openai().responses.create({
      model: 'gpt-5-codex',
      tools,
      store: false,
      input: [
        { role: 'user', content: PROMPT },
        ...(first.output as OpenAI.Responses.ResponseInputItem[]),
        { type: 'function_call_output', call_id: call?.type === 'function_call' ? call.call_id : '', output: 'a.txt' },
      ],
    });
    expect(next.status).toBe('completed');
    expect(sentToolCallTurn()?.['reasoning_content']).toBe(returnedThinking);
  });

  it('through Messages (as Claude Code sends it back) is taken', async () => {
    const tools = [{ name: 'shell', input_schema: { type: 'object' as const } }];
    harness.simulator.script({ kind: 'reply', toolCalls: [SHELL_CALL] });
    const first = await anthropic()
      .messages.stream({ model: 'claude-sonnet-4-5', max_tokens: 64, tools, messages: [{ role: 'user', content: PROMPT }] })
      .finalMessage();
    const toolUse = first.content.find((block) => block.type === 'tool_use');
    expect(toolUse).toBeDefined();
    const next = await anthropic().messages.create({
      model: 'claude-sonnet-4-5',
      max_tokens: 64,
      tools,
      messages: [
        { role: 'user', content: PROMPT },
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse?.type === 'tool_use' ? toolUse.id : '', content: 'a.txt' }] },
      ],
    });
    expect(next.stop_reason).toBe('end_turn');
    expect(sentToolCallTurn()?.['reasoning_content']).toBe(returnedThinking);
  });
});
