import { describe, expect, it } from 'vitest';
import { anthropicToChatRequest } from '../../../proxy/protocols/anthropic/request.ts';
import { base, chatBodyOf, options } from './anthropicRequestHelpers.ts';

/**
 * Claude Code 2.1.197 with ENABLE_TOOL_SEARCH=true (captured): its MCP tools and most built-ins are
 * kept out of `tools` and named in a system reminder; the client-run ToolSearch tool answers with a
 * tool_result holding `tool_reference` blocks, and from the next request on the tools found are in
 * `tools` with `defer_loading: true`. Anthropic's API expands each reference into the tool's
 * definition (dev.to/oldeucryptoboi/how-tool-search-defers-tools-to-save-tokens-3ln5; users turn it
 * on behind proxies with ENABLE_TOOL_SEARCH, modelcontextprotocol/go-sdk#762); a chat model has only
 * what the messages and tools say.
 */
const forecastTool = {
  name: 'mcp__weather__forecast',
  description: 'Weather forecast for a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  defer_loading: true,
};
const toolSearchTurn = [
  { role: 'user', content: 'Weather in Oslo?' },
  { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'ToolSearch', input: { query: 'forecast' } }] },
  {
    role: 'user',
    content: [
      { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'tool_reference', tool_name: 'mcp__weather__forecast' }] },
      { type: 'text', text: 'Tool loaded.' },
    ],
  },
];

describe("anthropicToChatRequest: Claude Code's tool search", () => {
  it('tells the model which tools a tool search found, and offers a deferred tool as a function', () => {
    const result = chatBodyOf({ ...base, messages: toolSearchTurn, tools: [forecastTool] });
    const messages = result.chatBody['messages'] as { role: string; content: unknown }[];
    expect(messages.find((message) => message.role === 'tool')).toEqual({
      role: 'tool',
      tool_call_id: 'toolu_1',
      content: 'Tools found, now available to call: mcp__weather__forecast',
    });
    expect(result.chatBody['tools']).toEqual([
      {
        type: 'function',
        function: { name: forecastTool.name, description: forecastTool.description, parameters: forecastTool.input_schema },
      },
    ]);
    expect(result.notes.filter((note) => note.includes('tool_reference'))).toEqual([]);
  });
});

/**
 * Claude Code's WebSearch tool is run by Claude Code as a request of its own whose only tool is
 * Anthropic's server tool web_search_20250305, forced by tool_choice (captured from 2.1.197). A chat
 * model cannot search: answered anyway, its made-up text came back to Claude Code as search results.
 */
describe('anthropicToChatRequest: a request that forces a server tool', () => {
  const webSearch = { type: 'web_search_20250305', name: 'web_search', max_uses: 8 };
  const searchRequest = {
    ...base,
    messages: [{ role: 'user', content: 'Perform a web search for the query: airlock' }],
    tools: [webSearch],
  };

  it.each([
    ['names it', { type: 'tool', name: 'web_search' }],
    ['requires a tool and has no other', { type: 'any' }],
  ])('is refused with what runs where when tool_choice %s', (_case, toolChoice) => {
    const result = anthropicToChatRequest({ ...searchRequest, tool_choice: toolChoice }, options);
    // Unfixable: no retry can be served, so the planner asks for none.
    expect(result).toEqual({
      ok: false,
      status: 400,
      message: expect.stringMatching(/web_search_20250305.*runs only at Anthropic/),
      unfixable: true,
    });
    expect(result.ok ? '' : result.message).toMatch(/deny its WebSearch tool .*settings\)$/);
  });

  it('still drops a server tool the model may leave unused, with a note', () => {
    const result = chatBodyOf({ ...searchRequest, tool_choice: { type: 'auto' } });
    expect(result.chatBody).not.toHaveProperty('tools');
    expect(result.notes).toContain('dropped server tool web_search_20250305: it runs at Anthropic only');
  });
});
