import type { ChatFunctionTool } from '../chat/chatMessages.ts';
import type { ResponsesToolSearchTool } from './requestSchema.ts';

/**
 * A Responses `tool_search` tool lets the model find tools the client kept back: Codex 0.169 keeps
 * its MCP tools out of gpt-5.5's `tools` and offers this instead (CommandCodeAI/command-code#893).
 * With `execution: "client"` the client runs the search (Codex: a BM25 index of the deferred tools,
 * openai/codex core/src/tools/handlers/tool_search.rs) once the answer holds a `tool_search_call`
 * whose `arguments` is a JSON object, and sends back that call and a `tool_search_output` whose
 * `tools` are the tools found; OpenAI's API offers them to the model from then on. Chat has none of
 * this, so the tool goes as a function of the same name, its call comes back as a
 * `tool_search_call`, and the tools found are offered as tools (requestTools.ts). A server-executed
 * search runs inside OpenAI's API only.
 */

export const TOOL_SEARCH_NAME = 'tool_search';

export function isClientToolSearch(tool: ResponsesToolSearchTool): boolean {
  return tool.execution === 'client';
}

export function toolSearchChatTool(tool: ResponsesToolSearchTool): ChatFunctionTool {
  const fn: ChatFunctionTool['function'] = { name: TOOL_SEARCH_NAME, parameters: tool.parameters ?? { type: 'object', properties: {} } };
  if (tool.description) fn.description = tool.description;
  return { type: 'function', function: fn };
}

/** A search's arguments as the chat function's (a call in the history). */
export function toolSearchCallArguments(searchArguments: unknown): string {
  return JSON.stringify(searchArguments ?? {});
}

/** The arguments object a tool_search_call carries; a model that wrote its query bare gets it as the query. */
export function toolSearchArguments(chatArguments: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(chatArguments);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // Not JSON: the query itself.
  }
  return { query: chatArguments };
}
