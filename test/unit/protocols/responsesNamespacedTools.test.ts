import { describe, expect, it } from 'vitest';
import { chatNameOf } from '../../../proxy/protocols/responses/namespacedTools.ts';
import { responsesToChatRequest } from '../../../proxy/protocols/responses/request.ts';
import { chatToResponsesResponse } from '../../../proxy/protocols/responses/response.ts';
import { createResponsesStreamTranslator } from '../../../proxy/protocols/responses/stream.ts';
import type { ClientToolNames } from '../../../proxy/protocols/requestResult.ts';
import { fedChunks, finishChunk, parseFrames, toolChunk } from './chatChunks.ts';
import { translationOptions as options } from './translationOptions.ts';

/**
 * Codex's namespace tools (its sub-agent tools as `multi_agent_v1`, an MCP server's as
 * `mcp__<server>__`: openai/codex codex-rs/tools/src/tool_spec.rs) go to chat as functions named to
 * chat's rules, and a call comes back with its namespace and bare name, the only way Codex routes
 * it (https://github.com/butterbase-ai/butterbase/pull/134).
 */
const CHAT_FUNCTION_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const parameters = { type: 'object', properties: { targets: { type: 'array', items: { type: 'string' } } } };

const fn = (name: string, description?: string) => ({
  type: 'function',
  name,
  strict: false,
  parameters,
  ...(description ? { description } : {}),
});
const namespace = (name: string, tools: object[], description?: string) => ({
  type: 'namespace',
  name,
  tools,
  ...(description ? { description } : {}),
});
const MULTI_AGENT = namespace('multi_agent_v1', [fn('spawn_agent', 'Spawn a sub-agent.'), fn('wait_agent')], 'Tools for sub-agents.');

function translated(body: Record<string, unknown>) {
  const result = responsesToChatRequest({ model: 'gpt-5-codex', input: 'Go.', ...body }, options);
  if (!result.ok) throw new Error(`unexpected refusal: ${result.message}`);
  return result;
}

function chatToolNames(body: Record<string, unknown>): string[] {
  return (translated(body).chatBody['tools'] as { function: { name: string } }[]).map((tool) => tool.function.name);
}

describe('the chat name of a namespace tool', () => {
  it.each([
    ['multi_agent_v1', 'spawn_agent', 'multi_agent_v1__spawn_agent'],
    ['mcp__node_repl__', 'js', 'mcp__node_repl__js'],
    ['mcp__my.server__', 'get/file', 'mcp__my_server__get_file'],
    ['collaboration', 'wait agent', 'collaboration__wait_agent'],
  ])('%s + %s is %s', (ns, name, expected) => {
    expect(chatNameOf({ namespace: ns, name })).toBe(expected);
  });

  it('is cut to 64 characters, told apart from another cut of the same start', () => {
    const ns = 'mcp__a_very_long_server_name_from_a_plugin_marketplace__';
    const names = ['read_the_whole_repository_index', 'read_the_whole_repository_index_2'].map((name) =>
      chatNameOf({ namespace: ns, name }),
    );
    for (const name of names) expect(name).toMatch(CHAT_FUNCTION_NAME);
    expect(names[0]).toHaveLength(64);
    expect(names[0]).not.toBe(names[1]);
  });
});

describe('responsesToChatRequest: namespace tools', () => {
  it('offers each tool of a namespace as a chat function, described with its namespace, among the plain tools', () => {
    const result = translated({ tools: [fn('exec_command'), MULTI_AGENT, fn('view_image')] });
    expect(result.chatBody['tools']).toEqual([
      { type: 'function', function: { name: 'exec_command', parameters, strict: false } },
      {
        type: 'function',
        function: {
          name: 'multi_agent_v1__spawn_agent',
          description: 'Tools for sub-agents.\n\nSpawn a sub-agent.',
          parameters,
          strict: false,
        },
      },
      {
        type: 'function',
        function: { name: 'multi_agent_v1__wait_agent', description: 'Tools for sub-agents.', parameters, strict: false },
      },
      { type: 'function', function: { name: 'view_image', parameters, strict: false } },
    ]);
    expect(result.notes).toEqual([]);
    expect(result.clientToolNames).toEqual({
      multi_agent_v1__spawn_agent: { namespace: 'multi_agent_v1', name: 'spawn_agent' },
      multi_agent_v1__wait_agent: { namespace: 'multi_agent_v1', name: 'wait_agent' },
      spawn_agent: { namespace: 'multi_agent_v1', name: 'spawn_agent' },
      wait_agent: { namespace: 'multi_agent_v1', name: 'wait_agent' },
    });
  });

  // Codex sends dozens of plain tools: a dotted name (below) is read from the call's name when no tool has it, not made for each tool.
  it('has no names to give back for a request whose tools are all plain functions', () => {
    expect(translated({ tools: [fn('exec_command'), fn('view_image')] }).clientToolNames).toBeUndefined();
  });

  it.each([
    ['a plain tool of the same name', [fn('multi_agent_v1__wait_agent'), MULTI_AGENT]],
    ['another namespace whose name makes the same one', [namespace('multi_agent_v1__', [fn('wait_agent')]), MULTI_AGENT]],
  ])('gives a namespace tool a name of its own beside %s', (_case, tools) => {
    const names = chatToolNames({ tools });
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(CHAT_FUNCTION_NAME);
  });

  it.each([
    ['a plain tool has it', [fn('wait_agent'), MULTI_AGENT], 'wait_agent', undefined],
    ['two namespaces have it', [MULTI_AGENT, namespace('collaboration', [fn('wait_agent')])], 'wait_agent', undefined],
    ['one namespace has it', [MULTI_AGENT], 'spawn_agent', { namespace: 'multi_agent_v1', name: 'spawn_agent' }],
  ])('takes a bare name called for a namespace tool only where no other tool has it: %s', (_case, tools, bare, expected) => {
    expect(translated({ tools }).clientToolNames?.[bare]).toEqual(expected);
  });

  it('drops a namespace tool chat cannot carry, with the note a plain one gets', () => {
    const result = translated({ tools: [namespace('code', [{ type: 'web_search' }, fn('wait')])] });
    expect((result.chatBody['tools'] as unknown[]).length).toBe(1);
    expect(result.notes).toEqual(['dropped web_search tools: Chat Completions has function tools only']);
  });

  it('sends a namespaced call in the input, and a tool_choice naming one, under the chat name of its tool', () => {
    const input = [
      { role: 'user', content: 'Wait.' },
      { type: 'function_call', call_id: 'call_1', namespace: 'multi_agent_v1', name: 'wait_agent', arguments: '{}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'done' },
    ];
    const tool_choice = { type: 'function', namespace: 'multi_agent_v1', name: 'spawn_agent' };
    const { chatBody } = translated({ input, tools: [fn('multi_agent_v1__wait_agent'), MULTI_AGENT], tool_choice });
    const messages = chatBody['messages'] as { tool_calls?: { function: { name: string } }[] }[];
    const offered = (chatBody['tools'] as { function: { name: string } }[]).map((tool) => tool.function.name);
    const called = messages[1]?.tool_calls?.[0]?.function.name;
    // The plain tool keeps its name, so the namespace's tool has another, and the call goes under that one.
    expect(called).not.toBe('multi_agent_v1__wait_agent');
    expect(offered).toContain(called);
    expect(chatBody['tool_choice']).toEqual({ type: 'function', function: { name: 'multi_agent_v1__spawn_agent' } });
  });
});

describe('a call of a namespace tool in the answer', () => {
  const clientToolNames: ClientToolNames = translated({ tools: [MULTI_AGENT] }).clientToolNames ?? {};
  const calls = [
    ['multi_agent_v1__wait_agent', { name: 'wait_agent', namespace: 'multi_agent_v1' }],
    ['wait_agent', { name: 'wait_agent', namespace: 'multi_agent_v1' }],
    ['exec_command', { name: 'exec_command' }],
    ['constructor', { name: 'constructor' }],
  ] as const;

  it.each(calls)('%s comes back in a JSON answer as %j', (chatName, expected) => {
    const reply = {
      choices: [
        {
          message: { tool_calls: [{ id: 'call_1', type: 'function', function: { name: chatName, arguments: '{}' } }] },
          finish_reason: 'tool_calls',
        },
      ],
    };
    const result = chatToResponsesResponse(reply, {
      gatewayTag: 'gw',
      upstreamModel: 'gw-model',
      requestedModel: 'gpt-5-codex',
      responseId: 'resp_1',
      clientToolNames,
    });
    if (!result.ok) throw new Error(result.message);
    const [item] = result.body['output'] as Record<string, unknown>[];
    expect(item).toMatchObject({ type: 'function_call', call_id: 'call_1', ...expected });
    if (!('namespace' in expected)) expect(item).not.toHaveProperty('namespace');
  });

  it.each(calls)('%s comes back in a stream as %j, in every frame naming it', (chatName, expected) => {
    const translator = fedChunks(
      createResponsesStreamTranslator({
        gatewayTag: 'gw',
        upstreamModel: 'gw-model',
        requestedModel: 'gpt-5-codex',
        responseId: 'resp_1',
        clientToolNames,
      }),
    );
    const chunks = [toolChunk({ index: 0, id: 'call_1', name: chatName, arguments: '{}' }), finishChunk('tool_calls')];
    const frames = parseFrames([...chunks.flatMap((chunk) => translator.push(chunk)), ...translator.finish()]);
    const items = frames.filter((frame) => frame.event.startsWith('response.output_item.')).map((frame) => frame.data['item']);
    expect(items).toEqual([expect.objectContaining(expected), expect.objectContaining(expected)]);
    const done = frames.find((frame) => frame.event === 'response.function_call_arguments.done');
    expect(done?.data['name']).toBe(expected.name);
  });
});

/**
 * Some models call a tool by a dotted name instead of the one it is offered under: a namespace's
 * member as `<namespace>.<member>` (an Ollama model called `mcp__node_repl__`'s `js` as
 * `mcp__node_repl.js`, which Codex refused until it came back with its namespace:
 * https://github.com/openai/codex/issues/23186; GPT-4o wrote `cc_code.MigrateCodeToCalc` for
 * `cc_code-MigrateCodeToCalc`: https://github.com/microsoft/semantic-kernel/issues/8292), and a plain
 * tool as `functions.<name>`, the default namespace (GPT-5.6: https://github.com/tontinton/maki/pull/518).
 */
describe('a call of a tool by a dotted name in the answer', () => {
  const APPLY_PATCH = { type: 'custom', name: 'apply_patch', format: { type: 'grammar', syntax: 'lark', definition: 'start: x' } };
  const MCP = namespace('mcp__node_repl__', [fn('js')]);
  const clientToolNames: ClientToolNames = translated({ tools: [fn('exec_command'), APPLY_PATCH, MULTI_AGENT, MCP] }).clientToolNames ?? {};

  it.each([
    ['multi_agent_v1.wait_agent', { type: 'function_call', namespace: 'multi_agent_v1', name: 'wait_agent' }],
    ['mcp__node_repl.js', { type: 'function_call', namespace: 'mcp__node_repl__', name: 'js' }],
    ['mcp__node_repl__.js', { type: 'function_call', namespace: 'mcp__node_repl__', name: 'js' }],
    ['functions.exec_command', { type: 'function_call', name: 'exec_command' }],
    ['functions.apply_patch', { type: 'custom_tool_call', name: 'apply_patch' }],
    ['other.wait_agent', { type: 'function_call', name: 'other.wait_agent' }],
  ])('%s comes back as %j', (chatName, expected) => {
    const reply = {
      choices: [
        {
          message: { tool_calls: [{ id: 'call_1', type: 'function', function: { name: chatName, arguments: '{"input":"x"}' } }] },
          finish_reason: 'tool_calls',
        },
      ],
    };
    const result = chatToResponsesResponse(reply, {
      gatewayTag: 'gw',
      upstreamModel: 'gw-model',
      requestedModel: 'gpt-5.5',
      responseId: 'resp_1',
      clientToolNames,
    });
    if (!result.ok) throw new Error(result.message);
    const [item] = result.body['output'] as Record<string, unknown>[];
    expect(item).toMatchObject({ call_id: 'call_1', ...expected });
    if (!('namespace' in expected)) expect(item).not.toHaveProperty('namespace');
  });
});
