import { describe, expect, it } from 'vitest';
import { base, chatBodyOf } from './anthropicRequestHelpers.ts';

/**
 * Claude Code 2.1.197 with ENABLE_TOOL_SEARCH=true (captured): its MCP tools and most built-ins are
 * kept out of `tools` and named in a system reminder; the client-run ToolSearch tool answers with a
 * tool_result holding `tool_reference` blocks, and from the next request on the tools found are in
 * `tools` with `defer_loading: true`. Anthropic's API expands each reference into the tool's
 * definition (docs: "Tool search tool", custom tool search implementations return tool_reference
 * blocks); a chat model has only what the messages and tools say.
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
