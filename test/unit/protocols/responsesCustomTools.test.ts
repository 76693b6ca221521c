import { describe, expect, it } from 'vitest';
import { responsesToChatRequest } from '../../../proxy/protocols/responses/request.ts';
import { chatToResponsesResponse } from '../../../proxy/protocols/responses/response.ts';
import { createResponsesStreamTranslator } from '../../../proxy/protocols/responses/stream.ts';
import type { ClientToolNames } from '../../../proxy/protocols/requestResult.ts';
import { characterPieces, fedChunks, finishChunk, parseFrames, toolChunk } from './chatChunks.ts';
import { translationOptions as options } from './translationOptions.ts';

/**
 * Responses `custom` (freeform) tools take raw text, not JSON: Codex 0.169 sends `apply_patch` as one
 * for gpt-5.5 and the gpt-5.6/gpt-6 models (its bundled model catalog: apply_patch_tool_type
 * "freeform") and runs a call of it only as a `custom_tool_call` with the patch as `input`
 * (https://github.com/MetaFARS/codex-relay/issues/37). Chat has function tools only, so a custom
 * tool goes as a function taking one string, `input` (the JSON form of apply_patch Codex itself
 * has: create_apply_patch_json_tool in openai/codex), and the call comes back as a custom tool call.
 */
const GRAMMAR = 'start: begin_patch hunk+ end_patch\nbegin_patch: "*** Begin Patch" LF';
const APPLY_PATCH = {
  type: 'custom',
  name: 'apply_patch',
  description: 'Use the `apply_patch` tool to edit files.',
  format: { type: 'grammar', syntax: 'lark', definition: GRAMMAR },
};
const PATCH = '*** Begin Patch\n*** Add File: hello.txt\n+hello "there"\n*** End Patch\n';

function translated(body: Record<string, unknown>) {
  const result = responsesToChatRequest({ model: 'gpt-5.5', input: 'Edit.', ...body }, options);
  if (!result.ok) throw new Error(`unexpected refusal: ${result.message}`);
  return result;
}

type ChatTool = { function: { name: string; description?: string; parameters: Record<string, unknown> } };

describe('responsesToChatRequest: custom tools', () => {
  it('offers a custom tool as a function taking its whole input as one string, told the grammar it must match', () => {
    const result = translated({ tools: [APPLY_PATCH] });
    const [tool] = result.chatBody['tools'] as ChatTool[];
    expect(tool?.function).toMatchObject({
      name: 'apply_patch',
      description: APPLY_PATCH.description,
      parameters: { type: 'object', properties: { input: { type: 'string' } }, required: ['input'], additionalProperties: false },
    });
    const properties = tool?.function.parameters['properties'] as Record<string, { description: string }> | undefined;
    const input = properties?.['input'];
    expect(input?.description).toContain('lark');
    expect(input?.description).toContain(GRAMMAR);
    expect(result.notes).toEqual([]);
    expect(result.clientToolNames?.['apply_patch']).toEqual({ name: 'apply_patch', freeform: true });
  });

  it("keeps a custom tool named like an object's own property as its own name: its calls come back as custom", () => {
    for (const name of ['__proto__', 'constructor']) {
      const result = translated({ tools: [{ ...APPLY_PATCH, name }] });
      const names = result.clientToolNames ?? {};
      expect(Object.hasOwn(names, name) ? names[name] : undefined).toEqual({ name, freeform: true });
    }
  });

  it('offers a custom tool without a grammar as one taking plain text', () => {
    const result = translated({ tools: [{ type: 'custom', name: 'note', format: { type: 'text' } }] });
    const [tool] = result.chatBody['tools'] as ChatTool[];
    expect(tool?.function.parameters).toMatchObject({ properties: { input: { type: 'string' } }, required: ['input'] });
    expect(result.clientToolNames?.['note']).toEqual({ name: 'note', freeform: true });
  });

  it("offers a namespace's custom tool under its namespaced name, still freeform", () => {
    const result = translated({ tools: [{ type: 'namespace', name: 'editor', tools: [APPLY_PATCH] }] });
    expect((result.chatBody['tools'] as ChatTool[]).map((tool) => tool.function.name)).toEqual(['editor__apply_patch']);
    expect(result.clientToolNames?.['editor__apply_patch']).toEqual({ namespace: 'editor', name: 'apply_patch', freeform: true });
    expect(result.notes).toEqual([]);
  });

  it('sends a tool_choice naming a custom tool as one naming its function', () => {
    const result = translated({ tools: [APPLY_PATCH], tool_choice: { type: 'custom', name: 'apply_patch' } });
    expect(result.chatBody['tool_choice']).toEqual({ type: 'function', function: { name: 'apply_patch' } });
  });

  it('sends an earlier custom tool call and its output as an assistant tool call and a tool message', () => {
    const input = [
      { role: 'user', content: 'Edit.' },
      { type: 'custom_tool_call', call_id: 'call_p1', name: 'apply_patch', input: PATCH },
      { type: 'custom_tool_call_output', call_id: 'call_p1', output: 'Success. Updated the following files:\nA hello.txt\n' },
      {
        type: 'custom_tool_call_output',
        call_id: 'call_p2',
        output: [
          { type: 'input_text', text: 'Script completed\n' },
          { type: 'input_text', text: 'ran' },
        ],
      },
    ];
    const result = translated({ input, tools: [APPLY_PATCH] });
    const messages = result.chatBody['messages'] as Record<string, unknown>[];
    expect(messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_p1', type: 'function', function: { name: 'apply_patch', arguments: JSON.stringify({ input: PATCH }) } }],
      },
      { role: 'tool', tool_call_id: 'call_p1', content: 'Success. Updated the following files:\nA hello.txt\n' },
      { role: 'tool', tool_call_id: 'call_p2', content: 'Script completed\nran' },
    ]);
    expect(result.notes).toEqual([]);
  });

  it("sends an earlier call of a namespace's custom tool under the name its tool is offered under", () => {
    const input = [{ type: 'custom_tool_call', call_id: 'call_p1', namespace: 'editor', name: 'apply_patch', input: PATCH }];
    const result = translated({ input, tools: [{ type: 'namespace', name: 'editor', tools: [APPLY_PATCH] }] });
    const [call] = (result.chatBody['messages'] as { tool_calls?: { function: { name: string } }[] }[])[0]?.tool_calls ?? [];
    expect(call?.function.name).toBe('editor__apply_patch');
  });
});

describe("a model's call of a custom tool in the answer", () => {
  const clientToolNames: ClientToolNames = translated({ tools: [APPLY_PATCH] }).clientToolNames ?? {};
  const wrapped = JSON.stringify({ input: PATCH });

  it.each([
    ['its input wrapped as the function asks', wrapped, PATCH],
    ['its input sent bare, not as JSON', PATCH, PATCH],
    ['JSON without an input field', '{"patch":"x"}', '{"patch":"x"}'],
  ])('comes back in a JSON answer as a custom tool call: %s', (_case, chatArguments, expectedInput) => {
    const reply = {
      choices: [
        {
          message: { tool_calls: [{ id: 'call_p1', type: 'function', function: { name: 'apply_patch', arguments: chatArguments } }] },
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
    expect(item).toEqual({
      id: expect.stringMatching(/^ctc_/),
      type: 'custom_tool_call',
      status: 'completed',
      call_id: 'call_p1',
      name: 'apply_patch',
      input: expectedInput,
    });
  });

  it('comes back in a stream as a custom tool call with its input events, however the arguments were cut', () => {
    const translator = fedChunks(
      createResponsesStreamTranslator({
        gatewayTag: 'gw',
        upstreamModel: 'gw-model',
        requestedModel: 'gpt-5.5',
        responseId: 'resp_1',
        clientToolNames,
      }),
    );
    const chunks = [
      toolChunk({ index: 0, id: 'call_p1', name: 'apply_patch', arguments: '' }),
      ...characterPieces(wrapped).map((piece) => toolChunk({ index: 0, arguments: piece })),
      finishChunk('tool_calls'),
    ];
    const frames = parseFrames([...chunks.flatMap((chunk) => translator.push(chunk)), ...translator.finish()]);
    const toolFrames = frames.filter((frame) => !['response.created', 'response.in_progress'].includes(frame.event));
    expect(toolFrames.map((frame) => frame.event)).toEqual([
      'response.output_item.added',
      'response.custom_tool_call_input.delta',
      'response.custom_tool_call_input.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const [added, delta, done, itemDone, completed] = toolFrames.map((frame) => frame.data);
    const itemId = (added?.['item'] as { id: string } | undefined)?.id;
    expect(added?.['item']).toEqual({
      id: expect.stringMatching(/^ctc_/),
      type: 'custom_tool_call',
      status: 'in_progress',
      call_id: 'call_p1',
      name: 'apply_patch',
      input: '',
    });
    expect(delta).toMatchObject({ item_id: itemId, output_index: 0, delta: PATCH });
    expect(done).toMatchObject({ item_id: itemId, output_index: 0, input: PATCH });
    const item = { id: itemId, type: 'custom_tool_call', status: 'completed', call_id: 'call_p1', name: 'apply_patch', input: PATCH };
    expect(itemDone?.['item']).toEqual(item);
    expect((completed?.['response'] as { output: unknown[] } | undefined)?.output).toEqual([item]);
  });
});
