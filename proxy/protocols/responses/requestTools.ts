import type { ChatFunctionTool, ChatToolChoice } from '../chat/chatMessages.ts';
import type { ClientToolName, ClientToolNames } from '../requestResult.ts';
import { customChatTool } from './customTools.ts';
import { NamespacedToolNamer } from './namespacedTools.ts';
import type { ResponsesFunctionTool, ResponsesRequest, ResponsesTool } from './requestSchema.ts';
import { isClientToolSearch, TOOL_SEARCH_NAME, toolSearchChatTool } from './toolSearch.ts';

/** A Responses request's tools -> chat function tools, and the names the answer's calls go back under. */

/** Names every namespace's tools first, so the calls in the input get the names their tools are offered under. */
export function namespacedToolNamer(tools: readonly ResponsesTool[]): NamespacedToolNamer {
  const namer = new NamespacedToolNamer(tools.flatMap((tool) => plainClientTool(tool)?.name ?? []));
  for (const tool of tools) {
    if (tool.type !== 'namespace') continue;
    for (const member of tool.tools) {
      if (member.type !== 'unsupported') namer.name({ namespace: tool.name, name: member.name }, member.type === 'custom');
    }
  }
  return namer;
}

/**
 * The chat names the answer's calls must be told apart by: namespaces' members and custom tools
 * (their calls carry raw text). A dotted name a model may call a tool by is read from the call (calledTool).
 */
export function clientToolNames(tools: readonly ResponsesTool[], namer: NamespacedToolNamer): ClientToolNames {
  const names = namer.clientNames();
  for (const tool of tools) {
    const plain = plainClientTool(tool);
    if (plain?.freeform || plain?.toolSearch) names[plain.name] = plain;
  }
  return names;
}

/** A tool offered under its own name, as the client names it; null for a namespace or a tool chat cannot offer. */
function plainClientTool(tool: ResponsesTool): ClientToolName | null {
  if (tool.type === 'custom') return { name: tool.name, freeform: true };
  if (tool.type === 'function') return { name: tool.name };
  if (tool.type === 'tool_search' && isClientToolSearch(tool)) return { name: TOOL_SEARCH_NAME, toolSearch: true };
  return null;
}

/** The chat names the tools go as (what a tool search found, told to the model). */
export function chatToolNames(tools: readonly ResponsesTool[], namer: NamespacedToolNamer): string[] {
  return tools.flatMap((tool) => {
    if (tool.type !== 'namespace') return plainClientTool(tool)?.name ?? [];
    return tool.tools.flatMap((member) => (member.type === 'unsupported' ? [] : [namer.name({ namespace: tool.name, name: member.name })]));
  });
}

export function toolFields(
  tools: readonly ResponsesTool[],
  request: ResponsesRequest,
  notes: string[],
  namer: NamespacedToolNamer,
): Record<string, unknown> {
  const chatTools: ChatFunctionTool[] = [];
  // A tool found by more than one search is in more than one output: chat takes each name once.
  const offered = new Set<string>();
  const offer = (chatTool: ChatFunctionTool): void => {
    if (offered.has(chatTool.function.name)) return;
    offered.add(chatTool.function.name);
    chatTools.push(chatTool);
  };
  const unsupported = (originalType: string): void =>
    addNote(notes, `dropped ${originalType} tools: Chat Completions has function tools only`);
  for (const tool of tools) {
    if (tool.type === 'unsupported') unsupported(tool.originalType);
    else if (tool.type === 'function') offer(chatFunctionTool(tool, tool.name, tool.description));
    else if (tool.type === 'custom') offer(customChatTool(tool, tool.name, tool.description));
    else if (tool.type === 'tool_search') {
      if (isClientToolSearch(tool)) offer(toolSearchChatTool(tool));
      else addNote(notes, 'dropped tool_search tools: only the Responses API runs a server-executed tool search');
    } else {
      for (const member of tool.tools) {
        if (member.type === 'unsupported') {
          unsupported(member.originalType);
          continue;
        }
        // Chat has no namespace to describe: its words go with each of its tools.
        const description = [tool.description, member.description].filter(Boolean).join('\n\n');
        const name = namer.name({ namespace: tool.name, name: member.name });
        offer(member.type === 'custom' ? customChatTool(member, name, description) : chatFunctionTool(member, name, description));
      }
    }
  }
  if (chatTools.length === 0) {
    if (request.tool_choice !== undefined) notes.push('dropped tool_choice: no function tools to choose from');
    return {};
  }
  const fields: Record<string, unknown> = { tools: chatTools };
  if (request.parallel_tool_calls != null) fields['parallel_tool_calls'] = request.parallel_tool_calls;
  const choice = request.tool_choice;
  if (choice === undefined) return fields;
  if (typeof choice === 'string') fields['tool_choice'] = choice;
  else if ((choice.type === 'function' || choice.type === 'custom') && choice.name) {
    const name = choice.namespace ? namer.callName({ namespace: choice.namespace, name: choice.name }) : choice.name;
    fields['tool_choice'] = { type: 'function', function: { name } } satisfies ChatToolChoice;
  } else notes.push(`dropped tool_choice of type ${choice.type}`);
  return fields;
}

function chatFunctionTool(tool: ResponsesFunctionTool, name: string, description: string | null | undefined): ChatFunctionTool {
  const fn: ChatFunctionTool['function'] = { name, parameters: tool.parameters ?? { type: 'object', properties: {} } };
  if (description) fn.description = description;
  if (tool.strict != null) fn.strict = tool.strict;
  return { type: 'function', function: fn };
}

export function addNote(notes: string[], note: string): void {
  if (!notes.includes(note)) notes.push(note);
}
