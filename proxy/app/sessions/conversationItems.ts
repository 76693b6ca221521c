import { TIMELINE_TEXT_MAX_CHARS, type ConversationItem } from '../../contracts/agentSessions.ts';
import { isRecord } from '../../core/isRecord.ts';

/**
 * Requests and answers of the three conversation protocols as one list of items (who said what,
 * which tool was called, what it returned), so turns of any of them compare the same way. Pure.
 * The shape is read from the body itself: a translated exchange logs the gateway's chat answer
 * under a Messages or Responses request.
 */

type Json = unknown;
type JsonObject = Record<string, Json>;
const stringOr = (value: Json, fallback: string): string => (typeof value === 'string' ? value : fallback);
const idOf = (value: Json): string | null => (typeof value === 'string' && value !== '' ? value : null);

/** Long texts are cut for the timeline; the request's detail has them whole. */
export function cutText(text: string): { text: string; cut?: true } {
  return text.length <= TIMELINE_TEXT_MAX_CHARS ? { text } : { text: text.slice(0, TIMELINE_TEXT_MAX_CHARS), cut: true };
}

export function textItem(kind: 'system' | 'user' | 'assistant' | 'reasoning', text: string): ConversationItem {
  return { kind, ...cutText(text) };
}

export function toolCallItem(name: string, callId: string | null, argumentsText: string): ConversationItem {
  return { kind: 'tool_call', name, callId, ...cutText(argumentsText) };
}

const asText = (value: Json): string => (typeof value === 'string' ? value : JSON.stringify(value ?? null));

/**
 * A tool result's content: a string, or blocks whose text parts are joined. The tools a Claude Code
 * ToolSearch found (`tool_reference` blocks) read as one line of their names, as Codex's search output does.
 */
function resultText(content: Json): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return asText(content);
  const lines: string[] = [];
  const foundTools: string[] = [];
  for (const block of content) {
    if (isRecord(block) && block.type === 'tool_reference') foundTools.push(stringOr(block.tool_name, '?'));
    else lines.push(isRecord(block) && typeof block.text === 'string' ? block.text : asText(block));
  }
  if (foundTools.length > 0) lines.push(foundTools.join(', '));
  return lines.join('\n');
}

const roleKind = (role: Json): 'system' | 'user' | 'assistant' =>
  role === 'system' || role === 'developer' ? 'system' : role === 'assistant' ? 'assistant' : 'user';

/** One content block of any of the three protocols, spoken by `role`. */
function blockItems(block: Json, role: 'system' | 'user' | 'assistant'): ConversationItem[] {
  if (typeof block === 'string') return block === '' ? [] : [textItem(role, block)];
  if (!isRecord(block)) return [];
  switch (block.type) {
    case 'image':
    case 'image_url':
    case 'input_image':
      return [{ kind: 'image' }];
    case 'tool_use':
      return [toolCallItem(stringOr(block.name, '?'), idOf(block.id), asText(block.input ?? {}))];
    case 'tool_result':
      return [
        { kind: 'tool_result', callId: idOf(block.tool_use_id), isError: block.is_error === true, ...cutText(resultText(block.content)) },
      ];
    case 'thinking':
      return typeof block.thinking === 'string' && block.thinking !== '' ? [textItem('reasoning', block.thinking)] : [];
    case 'redacted_thinking':
      return [];
    default:
      return typeof block.text === 'string' ? (block.text === '' ? [] : [textItem(role, block.text)]) : [textItem(role, asText(block))];
  }
}

function contentItems(content: Json, role: 'system' | 'user' | 'assistant'): ConversationItem[] {
  if (Array.isArray(content)) return content.flatMap((block) => blockItems(block, role));
  if (content === undefined || content === null) return [];
  return blockItems(content, role);
}

/** Chat's tool calls ride on the assistant message. */
function chatToolCalls(toolCalls: Json): ConversationItem[] {
  if (!Array.isArray(toolCalls)) return [];
  return toolCalls.filter(isRecord).map((call) => {
    const fn = isRecord(call.function) ? call.function : {};
    return toolCallItem(stringOr(fn.name, '?'), idOf(call.id), asText(fn.arguments ?? ''));
  });
}

/** A chat or Messages message. */
function messageItems(message: Json): ConversationItem[] {
  if (!isRecord(message)) return [];
  if (message.role === 'tool')
    return [{ kind: 'tool_result', callId: idOf(message.tool_call_id), isError: false, ...cutText(resultText(message.content)) }];
  const role = roleKind(message.role);
  const reasoning =
    typeof message.reasoning_content === 'string' && message.reasoning_content !== ''
      ? [textItem('reasoning', message.reasoning_content)]
      : [];
  return [...reasoning, ...contentItems(message.content, role), ...chatToolCalls(message.tool_calls)];
}

export interface ToolCallText {
  name: string;
  callId: string | null;
  argumentsText: string;
}

/** A Responses item calling a tool (Codex's tool search among them: its arguments are an object); null for any other. */
export function responsesToolCall(item: JsonObject): ToolCallText | null {
  const callId = idOf(item.call_id);
  switch (item.type) {
    case 'function_call':
      return { name: stringOr(item.name, '?'), callId, argumentsText: asText(item.arguments ?? '') };
    case 'custom_tool_call':
      return { name: stringOr(item.name, '?'), callId, argumentsText: asText(item.input ?? '') };
    case 'local_shell_call':
      return { name: 'local_shell', callId, argumentsText: asText(item.action ?? {}) };
    case 'tool_search_call':
      return { name: 'tool_search', callId, argumentsText: asText(item.arguments ?? {}) };
    default:
      return null;
  }
}

/** The tools a tool search found, by name (a namespace's as `<namespace>.<name>`). */
function foundToolNames(tools: Json): string[] {
  if (!Array.isArray(tools)) return [];
  return tools.filter(isRecord).flatMap((tool) => {
    if (tool.type !== 'namespace') return [stringOr(tool.name, '?')];
    const members = Array.isArray(tool.tools) ? tool.tools.filter(isRecord) : [];
    return members.map((member) => `${stringOr(tool.name, '?')}.${stringOr(member.name, '?')}`);
  });
}

/** A Responses input or output item. */
export function responsesItemItems(item: Json): ConversationItem[] {
  if (typeof item === 'string') return [textItem('user', item)];
  if (!isRecord(item)) return [];
  const call = responsesToolCall(item);
  if (call !== null) return [toolCallItem(call.name, call.callId, call.argumentsText)];
  switch (item.type) {
    case 'function_call_output':
    case 'custom_tool_call_output':
    case 'local_shell_call_output':
      return [{ kind: 'tool_result', callId: idOf(item.call_id), isError: false, ...cutText(resultText(item.output)) }];
    case 'tool_search_output':
      return [{ kind: 'tool_result', callId: idOf(item.call_id), isError: false, ...cutText(foundToolNames(item.tools).join(', ')) }];
    case 'reasoning': {
      const summary = Array.isArray(item.summary) ? resultText(item.summary) : '';
      return summary === '' ? [] : [textItem('reasoning', summary)];
    }
    default:
      return 'role' in item ? contentItems(item.content, roleKind(item.role)) : [];
  }
}

/** Instructions given beside the messages: Messages' `system`, Responses' `instructions`. */
function instructionItems(request: JsonObject): ConversationItem[] {
  return contentItems(request.system ?? request.instructions, 'system');
}

/** A chat, Messages or Responses request body as items; null when it holds no conversation. */
export function requestItems(request: Json): ConversationItem[] | null {
  if (!isRecord(request)) return null;
  const instructions = instructionItems(request);
  if (Array.isArray(request.messages)) return [...instructions, ...request.messages.flatMap(messageItems)];
  if (Array.isArray(request.input)) return [...instructions, ...request.input.flatMap(responsesItemItems)];
  if (typeof request.input === 'string') return [...instructions, textItem('user', request.input)];
  return null;
}

/** A whole (not streamed) chat, Messages or Responses answer as items; null when it is none of them. */
export function answerItemsOfJson(answer: Json): ConversationItem[] | null {
  if (!isRecord(answer)) return null;
  if (Array.isArray(answer.choices)) {
    const message = isRecord(answer.choices[0]) ? answer.choices[0].message : undefined;
    return messageItems(isRecord(message) ? { ...message, role: 'assistant' } : {});
  }
  if (Array.isArray(answer.content)) return contentItems(answer.content, 'assistant');
  if (Array.isArray(answer.output)) return answer.output.flatMap(responsesItemItems);
  return null;
}
