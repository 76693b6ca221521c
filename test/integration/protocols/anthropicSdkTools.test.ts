import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';

/** Anthropic's own tool types, sent by the official SDK through Airlock's translation to a chat gateway. */
let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({ profile: { modelRoutes: [{ pattern: 'claude-*', target: 'deepseek-chat' }] } });
});
afterAll(async () => {
  await harness.close();
});
beforeEach(() => harness.simulator.reset());

const client = () => new Anthropic({ baseURL: harness.proxy.url, apiKey: 'alk_client', maxRetries: 0 });

interface SentFunction {
  function: { name: string; parameters: { properties: Record<string, unknown>; required: string[] } };
}
const sentBody = (index: number) =>
  JSON.parse(harness.simulator.received[index]!.body.toString('utf8')) as {
    tools?: SentFunction[];
    messages: { role: string; content: unknown }[];
  };

describe('the official Anthropic SDK with its text editor tool through a chat gateway', () => {
  // The text editor page's str_replace input, which an SDK script runs against its own files.
  const edit = {
    command: 'str_replace',
    path: 'primes.py',
    old_str: 'for num in range(2, limit + 1)',
    new_str: 'for num in range(2, limit + 1):',
  };

  it.each([false, true])('gets the model call as a tool_use the script runs, with the documented input (stream: %s)', async (stream) => {
    harness.simulator.script(
      { kind: 'reply', toolCalls: [{ name: 'str_replace_based_edit_tool', arguments: JSON.stringify(edit) }] },
      { kind: 'reply', content: 'Fixed the missing colon.' },
    );
    const tools: Anthropic.Messages.ToolUnion[] = [
      { type: 'text_editor_20250728', name: 'str_replace_based_edit_tool', max_characters: 10_000 },
    ];
    const prompt: Anthropic.Messages.MessageParam = { role: 'user', content: 'Fix the syntax error in primes.py' };
    const request = { model: 'claude-sonnet-4-6', max_tokens: 256, tools, messages: [prompt] };
    const first = stream ? await client().messages.stream(request).finalMessage() : await client().messages.create(request);

    expect(first.stop_reason).toBe('tool_use');
    const toolUse = first.content.find((block) => block.type === 'tool_use');
    expect(toolUse).toMatchObject({ type: 'tool_use', name: 'str_replace_based_edit_tool', input: edit });
    // The chat model was offered the tool under its own name, with the documented commands.
    const offered = sentBody(0).tools?.map((tool) => tool.function);
    expect(offered?.map((fn) => fn.name)).toEqual(['str_replace_based_edit_tool']);
    expect(offered?.[0]?.parameters.required).toEqual(['command', 'path']);
    expect(Object.keys(offered?.[0]?.parameters.properties ?? {})).toEqual(expect.arrayContaining(['old_str', 'new_str', 'insert_text']));

    const result: Anthropic.Messages.ToolResultBlockParam = {
      type: 'tool_result',
      tool_use_id: toolUse!.id,
      content: 'Successfully replaced text at exactly one location.',
    };
    const second = await client().messages.create({
      ...request,
      messages: [prompt, { role: 'assistant', content: first.content }, { role: 'user', content: [result] }],
    });
    expect(second.content).toEqual([expect.objectContaining({ type: 'text', text: 'Fixed the missing colon.' })]);
    expect(sentBody(1).messages.at(-1)).toMatchObject({ role: 'tool', content: result.content });
  });
});

describe('the official Anthropic SDK with a server tool forced through a chat gateway', () => {
  it('is refused before the gateway, in words that do not ask for a retry that cannot help', async () => {
    const ended = harness.nextEnd();
    const refusal = client().messages.create({
      model: 'claude-sonnet-4-6',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Perform a web search for the query: airlock' }],
      tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 8 }],
      tool_choice: { type: 'tool', name: 'web_search' },
    });
    const error = await refusal.then(
      () => null,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    const body = (error as InstanceType<typeof Anthropic.BadRequestError>).error as { error: { message: string } };
    const message = body.error.message;
    expect(message).toMatch(/web_search_20250305.*runs only at Anthropic.*Nothing was sent to the gateway\.$/);
    expect(message).not.toMatch(/retry/i);
    expect((await ended).status).toBe(400);
    expect(harness.simulator.received).toEqual([]);
  });
});
