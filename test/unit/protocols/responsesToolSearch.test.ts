import { describe, expect, it } from 'vitest';
import { responsesToChatRequest } from '../../../proxy/protocols/responses/request.ts';
import { chatToResponsesResponse } from '../../../proxy/protocols/responses/response.ts';
import { createResponsesStreamTranslator } from '../../../proxy/protocols/responses/stream.ts';
import type { ClientToolNames } from '../../../proxy/protocols/requestResult.ts';
import { characterPieces, fedChunks, finishChunk, parseFrames, toolChunk } from './chatChunks.ts';
import { translationOptions as options } from './translationOptions.ts';

/**
 * Codex 0.169 sends gpt-5.5 a `tool_search` tool with `execution: "client"` and keeps its MCP tools
 * out of `tools` until the model searches for them (CommandCodeAI/command-code#893). Codex runs the
 * search itself (openai/codex core/src/tools/handlers/tool_search.rs, a BM25 index of the deferred
 * tools) when the answer holds a `tool_search_call` item whose `arguments` is a JSON object
 * (`query`, optional `limit`), and sends back that call and a `tool_search_output` item whose
 * `tools` are the tools found, in Responses form (namespaces of function tools). OpenAI's API
 * offers the model those tools from then on; chat has no such item, so they are offered as tools.
 */
// As Codex 0.169 sent it to gpt-5.5 (captured), its description cut short.
const TOOL_SEARCH = {
  type: 'tool_search',
  execution: 'client',
  description: '# Tool discovery\n\nSearches over deferred tool metadata with BM25 and exposes matching tools for the next model call.',
  parameters: {
    type: 'object',
    properties: {
      limit: { type: 'number', description: 'Maximum number of tools to return. Defaults to 8.' },
      query: { type: 'string', description: 'Search query for deferred tools.' },
    },
    required: ['query'],
    additionalProperties: false,
  },
};
const FORECAST_PARAMETERS = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
const WEATHER_NAMESPACE = {
  type: 'namespace',
  name: 'mcp__weather__',
  description: 'Tools in the mcp__weather__ namespace.',
  tools: [
    {
      type: 'function',
      name: 'forecast',
      description: 'Weather forecast for a city',
      strict: false,
      defer_loading: true,
      parameters: FORECAST_PARAMETERS,
    },
  ],
};
const SEARCH_CALL = {
  type: 'tool_search_call',
  call_id: 'call_s1',
  status: 'completed',
  execution: 'client',
  arguments: { query: 'weather', limit: 3 },
};
const SEARCH_OUTPUT = {
  type: 'tool_search_output',
  call_id: 'call_s1',
  status: 'completed',
  execution: 'client',
  tools: [WEATHER_NAMESPACE],
};

function translated(body: Record<string, unknown>) {
  const result = responsesToChatRequest({ model: 'gpt-5.5', input: 'Weather in Paris?', ...body }, options);
  if (!result.ok) throw new Error(`unexpected refusal: ${result.message}`);
  return result;
}

type ChatTool = { function: { name: string; description?: string; parameters: Record<string, unknown> } };
type ChatMessage = {
  role: string;
  content: unknown;
  tool_call_id?: string;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
};

function toolsOf(result: ReturnType<typeof translated>): ChatTool[] {
  return (result.chatBody['tools'] as ChatTool[] | undefined) ?? [];
}

describe('responsesToChatRequest: a client-executed tool_search', () => {
  it('offers it as a function of the same name, description and parameters, whose calls go back as tool_search calls', () => {
    const result = translated({ tools: [TOOL_SEARCH] });
    expect(toolsOf(result)).toEqual([
      { type: 'function', function: { name: 'tool_search', description: TOOL_SEARCH.description, parameters: TOOL_SEARCH.parameters } },
    ]);
    expect(result.notes).toEqual([]);
    expect(result.clientToolNames?.['tool_search']).toEqual({ name: 'tool_search', toolSearch: true });
  });

  it('still drops a server-executed tool_search, which only OpenAI runs', () => {
    const result = translated({ tools: [{ type: 'tool_search' }] });
    expect(result.chatBody['tools']).toBeUndefined();
    expect(result.notes).toEqual(['dropped tool_search tools: only the Responses API runs a server-executed tool search']);
  });

  it('sends an earlier search as a tool call and its result, and offers the tools it found under the names their calls come back by', () => {
    const input = [
      { role: 'user', content: 'Weather in Paris?' },
      SEARCH_CALL,
      SEARCH_OUTPUT,
      { type: 'function_call', call_id: 'call_f1', namespace: 'mcp__weather__', name: 'forecast', arguments: '{"city":"Paris"}' },
      { type: 'function_call_output', call_id: 'call_f1', output: 'sunny' },
    ];
    const result = translated({ input, tools: [TOOL_SEARCH] });
    const messages = result.chatBody['messages'] as ChatMessage[];
    expect(messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_s1', type: 'function', function: { name: 'tool_search', arguments: JSON.stringify(SEARCH_CALL.arguments) } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_s1', content: expect.stringContaining('mcp__weather__forecast') },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_f1', type: 'function', function: { name: 'mcp__weather__forecast', arguments: '{"city":"Paris"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_f1', content: 'sunny' },
    ]);
    expect(toolsOf(result).map((tool) => tool.function)).toEqual([
      expect.objectContaining({ name: 'tool_search' }),
      {
        name: 'mcp__weather__forecast',
        description: 'Tools in the mcp__weather__ namespace.\n\nWeather forecast for a city',
        parameters: FORECAST_PARAMETERS,
        strict: false,
      },
    ]);
    expect(result.clientToolNames?.['mcp__weather__forecast']).toEqual({ namespace: 'mcp__weather__', name: 'forecast' });
    expect(result.notes).toEqual([]);
  });

  it('offers a tool found by two searches once', () => {
    const again = { ...SEARCH_OUTPUT, call_id: 'call_s2' };
    const input = [SEARCH_CALL, SEARCH_OUTPUT, { ...SEARCH_CALL, call_id: 'call_s2' }, again];
    const names = toolsOf(translated({ input, tools: [TOOL_SEARCH] })).map((tool) => tool.function.name);
    expect(names).toEqual(['tool_search', 'mcp__weather__forecast']);
  });

  it('says so in the tool result when the search found nothing', () => {
    const input = [SEARCH_CALL, { ...SEARCH_OUTPUT, tools: [] }];
    const messages = translated({ input, tools: [TOOL_SEARCH] }).chatBody['messages'] as ChatMessage[];
    const result = messages.find((message) => message.role === 'tool');
    expect(result?.content).toEqual(expect.stringMatching(/no tools/i));
  });
});

describe("a model's call of tool_search in the answer", () => {
  const clientToolNames: ClientToolNames = translated({ tools: [TOOL_SEARCH] }).clientToolNames ?? {};
  const chatArguments = JSON.stringify({ query: 'weather forecast', limit: 2 });
  const searchItem = (status: string, args: unknown) => ({
    id: expect.stringMatching(/^tsc_/),
    type: 'tool_search_call',
    status,
    call_id: 'call_s1',
    execution: 'client',
    arguments: args,
  });

  it.each([
    ['its arguments as the function asks', chatArguments, { query: 'weather forecast', limit: 2 }],
    ['a bare query, not JSON', 'weather forecast', { query: 'weather forecast' }],
  ])('comes back in a JSON answer as a tool_search_call Codex runs: %s', (_case, sent, expected) => {
    const reply = {
      choices: [
        {
          message: { tool_calls: [{ id: 'call_s1', type: 'function', function: { name: 'tool_search', arguments: sent } }] },
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
    expect(result.body['output']).toEqual([searchItem('completed', expected)]);
  });

  it('comes back in a stream as a tool_search_call item, whole once its arguments are, however they were cut', () => {
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
      toolChunk({ index: 0, id: 'call_s1', name: 'tool_search', arguments: '' }),
      ...characterPieces(chatArguments).map((piece) => toolChunk({ index: 0, arguments: piece })),
      finishChunk('tool_calls'),
    ];
    const frames = parseFrames([...chunks.flatMap((chunk) => translator.push(chunk)), ...translator.finish()]);
    const toolFrames = frames.filter((frame) => !['response.created', 'response.in_progress'].includes(frame.event));
    expect(toolFrames.map((frame) => frame.event)).toEqual([
      'response.output_item.added',
      'response.output_item.done',
      'response.completed',
    ]);
    const [added, done, completed] = toolFrames.map((frame) => frame.data);
    expect(added?.['item']).toEqual(searchItem('in_progress', {}));
    const item = searchItem('completed', { query: 'weather forecast', limit: 2 });
    expect(done?.['item']).toEqual(item);
    const itemIdOf = (frame: Record<string, unknown> | undefined) => (frame?.['item'] as { id?: string } | undefined)?.id;
    expect(itemIdOf(added)).toBe(itemIdOf(done));
    expect((completed?.['response'] as { output: unknown[] } | undefined)?.output).toEqual([item]);
  });
});
