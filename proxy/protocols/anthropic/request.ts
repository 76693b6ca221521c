import { badRequest, describeSchemaError, emptiedUserMessage, unfixableRequest, unknownFieldNotes } from '../requestResult.ts';
import { isReturnableReasoning, joinedReasoning } from '../chat/returnedReasoning.ts';
import { setReasoningEffortLast } from '../chat/reasoningEffort.ts';
import { outputBoundMember } from '../chat/maxTokens.ts';
import type { ChatRequestTranslation, RequestRefusal } from '../requestResult.ts';
import type { ChatRequestOptions } from '../adapter.ts';
import { foundToolsMessage, imagePart, textPart, untranslatedToolResult, userContent, withLeadingSystem } from '../chat/chatMessages.ts';
import type { AssistantMessage, ChatContentPart, ChatMessage, ChatToolCall } from '../chat/chatMessages.ts';
import {
  addRelayThinking,
  type AnswerSource,
  joinedRelayThinking,
  relayThinkingOfMark,
  type RelayThinking,
} from '../chat/relayThinking.ts';
import { toolFields } from './tools.ts';
import { contextManagementNotes } from './contextManagement.ts';
import { anthropicRequestSchema, anthropicTranslatedFields } from './requestSchema.ts';
import type { AnthropicContentBlock, AnthropicImageBlock, AnthropicRequest } from './requestSchema.ts';
import { chatCallId, chatCallIdentity, signaturesOfCurrentTurnOnly } from '../chat/thoughtSignature.ts';

/** Anthropic Messages request -> Chat Completions request. Pure; `notes` list what was dropped. */

/** Tells the model a tool failed; chat tool messages have no error flag. */
export const TOOL_ERROR_PREFIX = '[tool error] ';

type MessageResult = { ok: true; messages: ChatMessage[] } | RequestRefusal;

export function anthropicToChatRequest(body: unknown, options: ChatRequestOptions): ChatRequestTranslation {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return badRequest('the request body must be a JSON object');
  const parsed = anthropicRequestSchema().safeParse(body, { reportInput: true });
  if (!parsed.success) return badRequest(`invalid Messages request: ${describeSchemaError(parsed.error)}`);
  const request = parsed.data;
  const notes = unknownFieldNotes(body as Record<string, unknown>, anthropicTranslatedFields());

  const messages: ChatMessage[] = [];
  const systemText = request.system === undefined ? '' : textOf(request.system, notes);
  if (systemText !== '') messages.push({ role: 'system', content: systemText });
  for (const [index, message] of request.messages.entries()) {
    const translated = translateMessage(message, index, options, notes);
    if (!translated.ok) return translated;
    messages.push(...translated.messages);
  }
  signaturesOfCurrentTurnOnly(messages);

  const chatBody: Record<string, unknown> = {
    ...outputBoundMember(request.max_tokens, options.maxTokensRefused),
    model: options.upstreamModel,
    messages: withLeadingSystem(messages),
  };
  if (request.temperature !== undefined) chatBody['temperature'] = request.temperature;
  if (request.top_p !== undefined) chatBody['top_p'] = request.top_p;
  if (request.top_k !== undefined) notes.push('dropped top_k: Chat Completions has no equivalent');
  if (request.stop_sequences !== undefined && request.stop_sequences.length > 0) chatBody['stop'] = request.stop_sequences;
  Object.assign(chatBody, userField(request.metadata?.user_id, notes));
  const tools = toolFields(request, notes);
  if (!tools.ok) return tools;
  Object.assign(chatBody, tools.fields);
  Object.assign(chatBody, outputFormatFields(request, notes));
  const stream = request.stream === true;
  if (stream) {
    chatBody['stream'] = true;
    if (options.includeUsage) chatBody['stream_options'] = { include_usage: true };
  }
  contextManagementNotes(request.context_management, notes);
  const effort = reasoningEffort(request, options, notes);
  if (effort !== null) setReasoningEffortLast(chatBody, effort);
  return { ok: true, chatBody, stream, notes };
}

/** `target`: who the request goes to; only thinking it sent goes back (returnedReasoning.ts, relayThinking.ts). */
function translateMessage(
  message: AnthropicRequest['messages'][number],
  index: number,
  target: AnswerSource,
  notes: string[],
): MessageResult {
  if (typeof message.content === 'string') {
    return { ok: true, messages: [{ role: message.role, content: message.content }] };
  }
  if (message.content.some(holdsFileImage)) {
    return badRequest(
      `messages.${index}: an image given by file_id (the Files API) cannot be translated to Chat Completions, which takes an image by URL or its data; send it as base64 or a URL`,
    );
  }
  if (message.content.some(holdsDocument)) {
    return unfixableRequest('document blocks (PDF) cannot be translated to Chat Completions; use a model served natively');
  }
  if (message.role === 'system') return { ok: true, messages: [{ role: 'system', content: textOf(message.content, notes) }] };
  if (message.role === 'assistant') return { ok: true, messages: assistantMessages(message.content, target, notes) };
  const translated = userMessages(message.content, notes);
  if (translated.length === 0 && message.content.length > 0) {
    return emptiedUserMessage(
      `messages.${index}.content`,
      message.content.map(blockType),
      'text, image, search_result and tool_result blocks',
    );
  }
  return { ok: true, messages: translated };
}

/** An image the client uploaded to Anthropic's Files API, in the turn or a tool's result: chat has no file ids. */
function holdsFileImage(block: AnthropicContentBlock): boolean {
  if (block.type === 'image') return block.source.type === 'file';
  if (block.type !== 'tool_result' || !Array.isArray(block.content)) return false;
  return block.content.some((part) => part.type === 'image' && part.source.type === 'file');
}

/** A document, or a tool's result holding one (Claude Code's Read of a PDF): no chat part carries it. */
function holdsDocument(block: AnthropicContentBlock): boolean {
  if (block.type === 'document') return true;
  if (block.type !== 'tool_result' || !Array.isArray(block.content)) return false;
  return block.content.some((part) => part.type === 'unsupported' && part.originalType === 'document');
}

/** tool_result blocks become tool messages, which must directly follow the assistant's calls. */
function userMessages(blocks: AnthropicContentBlock[], notes: string[]): ChatMessage[] {
  const toolMessages: ChatMessage[] = [];
  const toolImages: ChatContentPart[] = [];
  const parts: ChatContentPart[] = [];
  for (const block of blocks) {
    if (block.type === 'text') parts.push(textPart(block.text));
    else if (block.type === 'image') parts.push(imagePart(imageUrl(block)));
    else if (block.type === 'search_result') parts.push(textPart(searchResultText(block)));
    else if (block.type === 'tool_result') {
      const content = toolResultContent(block, toolImages, notes);
      toolMessages.push({ role: 'tool', tool_call_id: chatCallId(block.tool_use_id), content });
    } else noteDropped(block, notes);
  }
  // Chat tool messages carry text only: images a tool returned follow as a user message.
  if (toolImages.length > 0) notes.push('moved images returned by tools into a user message after the tool results');
  const allParts = [...toolImages, ...parts];
  return allParts.length > 0 ? [...toolMessages, { role: 'user', content: userContent(allParts) }] : toolMessages;
}

function assistantMessages(blocks: AnthropicContentBlock[], target: AnswerSource, notes: string[]): ChatMessage[] {
  const texts: string[] = [];
  const toolCalls: ChatToolCall[] = [];
  // Thinking that may go back to this gateway (returnedReasoning.ts), its relay's signed blocks (relayThinking.ts); other thinking is dropped.
  const thoughts: string[] = [];
  let relayThinking: RelayThinking | null = null;
  for (const block of blocks) {
    if (block.type === 'text') texts.push(block.text);
    else if (block.type === 'tool_use') {
      toolCalls.push({
        ...chatCallIdentity(block.id, target.gatewayTag),
        type: 'function',
        function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) },
      });
    } else if (block.type === 'thinking') {
      const relay = relayThinkingOfMark(block.signature, target);
      if (relay !== null) relayThinking = joinedRelayThinking(relayThinking, relay);
      else if (!isReturnableReasoning(block.signature, target.gatewayTag)) noteDropped(block, notes);
      else if (block.thinking) thoughts.push(block.thinking);
    } else noteDropped(block, notes);
  }
  const content = texts.length > 0 ? texts.join('') : null;
  if (content === null && toolCalls.length === 0) return [];
  if (toolCalls.length === 0) return [{ role: 'assistant', content }];
  // Only a tool-call turn takes its thinking back: there DeepSeek asks for it, and Claude behind a relay.
  const turn: AssistantMessage = {
    role: 'assistant',
    content,
    tool_calls: toolCalls,
    ...(thoughts.length > 0 ? { reasoning_content: joinedReasoning(undefined, thoughts) } : {}),
  };
  if (relayThinking !== null) addRelayThinking(turn, relayThinking);
  return [turn];
}

function toolResultContent(
  block: Extract<AnthropicContentBlock, { type: 'tool_result' }>,
  toolImages: ChatContentPart[],
  notes: string[],
): string {
  const prefix = block.is_error === true ? TOOL_ERROR_PREFIX : '';
  if (block.content === undefined || typeof block.content === 'string') return prefix + (block.content ?? '');
  const texts: string[] = [];
  const foundTools: string[] = [];
  const dropped: string[] = [];
  for (const part of block.content) {
    if (part.type === 'text') texts.push(part.text);
    else if (part.type === 'image') toolImages.push(imagePart(imageUrl(part)));
    else if (part.type === 'tool_reference') foundTools.push(part.tool_name);
    else if (part.type === 'search_result') texts.push(searchResultText(part));
    else {
      notes.push(`dropped a ${part.originalType} block inside a tool result`);
      dropped.push(part.originalType);
    }
  }
  if (dropped.length > 0 && dropped.length === block.content.length) return prefix + untranslatedToolResult(dropped);
  // A deferred tool is offered to chat as a plain function (its defer_loading dropped), so a search's
  // references only need to tell the model that the tools it found can now be called.
  if (foundTools.length > 0) texts.push(foundToolsMessage(foundTools));
  return prefix + texts.join('\n');
}

function textOf(
  content: string | ({ type: 'text'; text: string } | { type: 'unsupported'; originalType: string } | AnthropicContentBlock)[],
  notes: string[],
): string {
  if (typeof content === 'string') return content;
  const texts: string[] = [];
  for (const block of content) {
    if (block.type === 'text') texts.push(block.text);
    else noteDropped(block, notes);
  }
  return texts.join('\n\n');
}

/** Chat has no search result part: its text goes with the title and source the model would cite. */
function searchResultText(block: { title: string; source: string; content: { text: string }[] }): string {
  const texts = block.content.map((part) => part.text).join('\n\n');
  return `<search_result>\ntitle: ${block.title}\nsource: ${block.source}\n\n${texts}\n</search_result>`;
}

/** Never a file's: those are refused first (holdsFileImage). */
function imageUrl(block: AnthropicImageBlock): string {
  if (block.source.type === 'file') throw new Error('an image given by file_id is refused before translation');
  return block.source.type === 'url' ? block.source.url : `data:${block.source.media_type};base64,${block.source.data}`;
}

function blockType(block: AnthropicContentBlock): string {
  return block.type === 'unsupported' ? block.originalType : block.type;
}

function noteDropped(block: AnthropicContentBlock, notes: string[]): void {
  const note = `dropped ${blockType(block)} blocks`;
  if (!notes.includes(note)) notes.push(note);
}

/**
 * OpenRouter refuses a `user` over 128 characters and OpenAI's is reported capped at 64, while
 * Claude Code sends a JSON object of ids (about 150): sent on, every request would be refused.
 */
const MAX_CHAT_USER_CHARS = 64;

function userField(userId: string | null | undefined, notes: string[]): Record<string, unknown> {
  if (!userId) return {};
  if (userId.length <= MAX_CHAT_USER_CHARS) return { user: userId };
  notes.push(`dropped metadata.user_id: ${userId.length} characters, more than chat gateways take as user`);
  return {};
}

/** budget_tokens has no chat equivalent; it is mapped onto the effort levels by size. */
export function effortForThinkingBudget(budgetTokens: number): 'low' | 'medium' | 'high' {
  if (budgetTokens < 4_096) return 'low';
  if (budgetTokens < 16_384) return 'medium';
  return 'high';
}

/** Anthropic's effort levels above high (xhigh, max) have no level every chat gateway takes. */
const CHAT_EFFORTS: ReadonlySet<string> = new Set(['low', 'medium', 'high']);

/** output_config.effort, when given, is the client's own level; else one is read from thinking. Null: none to send. */
function reasoningEffort(request: AnthropicRequest, options: ChatRequestOptions, notes: string[]): string | null {
  const thinking = request.thinking;
  const effort = request.output_config?.effort;
  if (thinking?.type === 'disabled' || (thinking === undefined && effort === undefined)) return null;
  const chatEffort = chatEffortOf(thinking, effort, notes);
  if (!options.refusedReasoningEfforts.includes(chatEffort)) return chatEffort;
  const dropped = [...(thinking === undefined ? [] : ['thinking']), ...(effort === undefined ? [] : ['output_config.effort'])];
  notes.push(`dropped ${dropped.join(' and ')}: the gateway refused reasoning_effort ${chatEffort} for this model`);
  return null;
}

function chatEffortOf(thinking: AnthropicRequest['thinking'], effort: string | undefined, notes: string[]): string {
  if (effort === undefined) return thinking?.type === 'enabled' ? effortForThinkingBudget(thinking.budget_tokens) : 'medium';
  if (CHAT_EFFORTS.has(effort)) return effort;
  notes.push(`approximated output_config.effort ${effort} as reasoning_effort high, the highest chat gateways share`);
  return 'high';
}

/** Structured outputs must match their schema: chat's strict json_schema format says the same. */
function outputFormatFields(request: AnthropicRequest, notes: string[]): Record<string, unknown> {
  const format = request.output_config?.format;
  if (format === undefined) return {};
  if (format.type === 'json_schema' && format.schema !== undefined) {
    return { response_format: { type: 'json_schema', json_schema: { name: 'output', schema: format.schema, strict: true } } };
  }
  notes.push(`dropped output_config.format of type ${format.type}`);
  return {};
}
