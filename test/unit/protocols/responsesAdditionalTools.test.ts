import { describe, expect, it } from 'vitest';
import { responsesToChatRequest } from '../../../proxy/protocols/responses/request.ts';
import { chatToResponsesResponse } from '../../../proxy/protocols/responses/response.ts';
import { translationOptions as options } from './translationOptions.ts';

/**
 * Codex 0.144 and later send the tools of some models (gpt-5.6-sol in Codex 0.169's catalog) not in
 * `tools` but in an `additional_tools` input item: a developer item holding namespaces, function and
 * custom tools (https://github.com/theopenco/llmgateway/pull/3613,
 * https://github.com/SaladDay/cc-switch-cli/issues/466). Its `functions` namespace is Codex's own
 * tools, which Codex runs whether a call names that namespace or not (seen with Codex 0.169).
 */
const parameters = { type: 'object', properties: {} };
const EXEC = {
  type: 'custom',
  name: 'exec',
  description: 'Run JavaScript.',
  format: { type: 'grammar', syntax: 'lark', definition: 'start: SOURCE' },
};
const ADDITIONAL_TOOLS = {
  type: 'additional_tools',
  id: 'at_1',
  role: 'developer',
  tools: [
    { type: 'namespace', name: 'functions', description: '', tools: [EXEC, { type: 'function', name: 'wait', parameters }] },
    {
      type: 'namespace',
      name: 'collaboration',
      description: 'Tools for sub-agents.',
      tools: [{ type: 'function', name: 'wait_agent', parameters }],
    },
  ],
};
const USER = { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Run it.' }] };

function translated(body: Record<string, unknown>) {
  const result = responsesToChatRequest({ model: 'gpt-5.6-sol', ...body }, options);
  if (!result.ok) throw new Error(`unexpected refusal: ${result.message}`);
  return result;
}

type ChatTool = { function: { name: string; parameters: Record<string, unknown> } };

describe('responsesToChatRequest: tools in an additional_tools input item', () => {
  it('offers them as the tools of the request, Codex’s own under their bare names, and sends the item as no message', () => {
    const result = translated({ input: [ADDITIONAL_TOOLS, USER] });
    const tools = result.chatBody['tools'] as ChatTool[];
    expect(tools.map((tool) => tool.function.name)).toEqual(['exec', 'wait', 'collaboration__wait_agent']);
    expect(tools[0]?.function.parameters).toMatchObject({ properties: { input: { type: 'string' } }, required: ['input'] });
    expect(result.chatBody['messages']).toEqual([{ role: 'user', content: 'Run it.' }]);
    expect(result.notes).toEqual([]);
    expect(result.clientToolNames).toMatchObject({
      exec: { namespace: 'functions', name: 'exec', freeform: true },
      wait: { namespace: 'functions', name: 'wait' },
      collaboration__wait_agent: { namespace: 'collaboration', name: 'wait_agent' },
    });
  });

  it('offers them after the tools the request names', () => {
    const result = translated({ input: [ADDITIONAL_TOOLS, USER], tools: [{ type: 'function', name: 'view_image', parameters }] });
    expect((result.chatBody['tools'] as ChatTool[]).map((tool) => tool.function.name)).toEqual([
      'view_image',
      'exec',
      'wait',
      'collaboration__wait_agent',
    ]);
  });

  it('sends an earlier call of one of them under the name it is offered under', () => {
    const input = [
      ADDITIONAL_TOOLS,
      USER,
      { type: 'custom_tool_call', call_id: 'call_e1', namespace: 'functions', name: 'exec', input: 'text(1)' },
      { type: 'custom_tool_call_output', call_id: 'call_e1', output: 'ok' },
      { type: 'function_call', call_id: 'call_w1', namespace: 'collaboration', name: 'wait_agent', arguments: '{}' },
      { type: 'function_call_output', call_id: 'call_w1', output: 'done' },
    ];
    const messages = translated({ input }).chatBody['messages'] as { tool_calls?: { function: { name: string } }[] }[];
    expect(messages.flatMap((message) => message.tool_calls ?? []).map((call) => call.function.name)).toEqual([
      'exec',
      'collaboration__wait_agent',
    ]);
  });

  it("maps the model's call of Codex's JavaScript tool back to a custom tool call Codex runs", () => {
    const clientToolNames = translated({ input: [ADDITIONAL_TOOLS, USER] }).clientToolNames ?? {};
    const reply = {
      choices: [
        {
          message: { tool_calls: [{ id: 'call_e1', type: 'function', function: { name: 'exec', arguments: '{"input":"text(1)"}' } }] },
          finish_reason: 'tool_calls',
        },
      ],
    };
    const result = chatToResponsesResponse(reply, {
      gatewayTag: 'gw',
      upstreamModel: 'gw-model',
      requestedModel: 'gpt-5.6-sol',
      responseId: 'resp_1',
      clientToolNames,
    });
    if (!result.ok) throw new Error(result.message);
    expect(result.body['output']).toEqual([
      expect.objectContaining({ type: 'custom_tool_call', call_id: 'call_e1', namespace: 'functions', name: 'exec', input: 'text(1)' }),
    ]);
  });
});
