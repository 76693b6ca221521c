import type { ChatFunctionTool, ChatToolChoice } from '../chat/chatMessages.ts';
import { badRequest, unfixableRequest, type RequestRefusal } from '../requestResult.ts';
import { clientToolFunction, isServerTool, type AnthropicDefinedTool } from './definedTools.ts';
import type { AnthropicRequest } from './requestSchema.ts';

type ToolFields = { ok: true; fields: Record<string, unknown> } | RequestRefusal;

/**
 * Custom tools and Anthropic's client tools (definedTools.ts) become chat functions. Server tools run
 * at Anthropic only and are dropped with a note, as is a typed tool Airlock has no schema for, unless
 * tool_choice makes the model use one: then the answer could only pass made-up text off as the tool's
 * outcome, so the request is refused instead.
 */
export function toolFields(request: AnthropicRequest, notes: string[]): ToolFields {
  const tools: ChatFunctionTool[] = [];
  const dropped: AnthropicDefinedTool[] = [];
  for (const tool of request.tools ?? []) {
    if (tool.type === 'custom') {
      const fn: ChatFunctionTool['function'] = { name: tool.name, parameters: tool.input_schema };
      if (tool.description !== undefined) fn.description = tool.description;
      tools.push({ type: 'function', function: fn });
      continue;
    }
    const clientTool = clientToolFunction(tool);
    if (clientTool !== null) {
      tools.push({ type: 'function', function: clientTool });
      continue;
    }
    dropped.push(tool);
    notes.push(
      isServerTool(tool)
        ? `dropped server tool ${tool.originalType}: it runs at Anthropic only`
        : `dropped Anthropic tool ${tool.originalType}: Airlock has no schema to offer it to a chat model`,
    );
  }
  const choice = request.tool_choice;
  const forced = choice?.type === 'tool' ? dropped.find((tool) => tool.name === choice.name) : undefined;
  const required = choice?.type === 'any' && tools.length === 0 ? dropped[0] : undefined;
  const refused = forced ?? required;
  if (refused !== undefined)
    return isServerTool(refused) ? unfixableRequest(forcedServerToolMessage(refused)) : badRequest(forcedUnknownToolMessage(refused));
  if (tools.length === 0) {
    if (choice !== undefined) notes.push('dropped tool_choice: no tools to choose from');
    return { ok: true, fields: {} };
  }
  const fields: Record<string, unknown> = { tools };
  if (choice === undefined) return { ok: true, fields };
  const chatChoice: ChatToolChoice =
    choice.type === 'auto'
      ? 'auto'
      : choice.type === 'any'
        ? 'required'
        : choice.type === 'none'
          ? 'none'
          : { type: 'function', function: { name: choice.name } };
  fields['tool_choice'] = chatChoice;
  if (choice.type !== 'none' && choice.disable_parallel_tool_use === true) fields['parallel_tool_calls'] = false;
  return { ok: true, fields };
}

const namedTool = (tool: AnthropicDefinedTool): string =>
  tool.name === undefined ? tool.originalType : `${tool.name} (${tool.originalType})`;

/**
 * Claude Code's WebSearch tool sends a request of its own that forces `web_search`; the refusal reaches
 * the model as the tool's result, so it says to go on without the tool and how to stop it being
 * offered. No closing period: the planner adds that nothing was sent.
 */
function forcedServerToolMessage(tool: AnthropicDefinedTool): string {
  return (
    `${namedTool(tool)} is a server tool that runs only at Anthropic; this model is served through a Chat Completions gateway, ` +
    'which cannot run it. Go on without it, and do not call it again in this session. ' +
    "To stop Claude Code offering it, deny its WebSearch tool (permissions.deny in Claude Code's settings)"
  );
}

/** A later tool type, or a toolset, whose input Airlock does not know: a chat model cannot be made to call it. */
function forcedUnknownToolMessage(tool: AnthropicDefinedTool): string {
  return `${namedTool(tool)} is an Anthropic tool type Airlock has no schema for, so a chat model cannot be made to call it; offer it only to a model served natively`;
}
