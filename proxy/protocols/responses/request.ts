import { badRequest, describeSchemaError, emptiedUserMessage, unfixableRequest, unknownFieldNotes } from '../requestResult.ts';
import type { ChatRequestTranslation, RequestRefusal } from '../requestResult.ts';
import type { ChatRequestOptions } from '../adapter.ts';
import { foundToolsMessage, imagePart, textPart, untranslatedToolResult, userContent, withLeadingSystem } from '../chat/chatMessages.ts';
import type { AssistantMessage, ChatContentPart, ChatMessage, ChatToolCall } from '../chat/chatMessages.ts';
import { isReturnableReasoning, joinedReasoning } from '../chat/returnedReasoning.ts';
import { outputBoundMember } from '../chat/maxTokens.ts';
import {
  addRelayThinking,
  type AnswerSource,
  joinedRelayThinking,
  relayThinkingOfMark,
  type RelayThinking,
} from '../chat/relayThinking.ts';
import { setReasoningEffortLast } from '../chat/reasoningEffort.ts';
import { responsesRequestSchema, responsesTranslatedFields } from './requestSchema.ts';
import type { ResponsesContentPart, ResponsesInputItem, ResponsesRequest, ResponsesTool } from './requestSchema.ts';
import type { NamespacedToolNamer } from './namespacedTools.ts';
import { customToolArguments } from './customTools.ts';
import { addNote, chatToolNames, clientToolNames, namespacedToolNamer, toolFields } from './requestTools.ts';
import { TOOL_SEARCH_NAME, toolSearchCallArguments } from './toolSearch.ts';
import { chatCallId, chatCallIdentity, signaturesOfCurrentTurnOnly } from '../chat/thoughtSignature.ts';

/** Responses API request -> Chat Completions request. Pure; `notes` list what was dropped. */

export const PREVIOUS_RESPONSE_ID_MESSAGE =
  'previous_response_id is not supported: Airlock keeps no server-side state; send the full input (Codex: store=false does this)';

/**
 * An `item_reference` names an item OpenAI's Responses API stored from an earlier response: Airlock
 * keeps none, and dropped, the conversation reached the model without it, billed and unseen.
 */
const ITEM_REFERENCE_MESSAGE =
  'the input has an item_reference, which names an item stored by an earlier response: Airlock keeps no server-side state; ' +
  'send the item itself in the input';

/**
 * Remote compaction is state only OpenAI's Responses API keeps: Codex asks for it (an input ending in
 * `compaction_trigger`) on OpenAI's and Azure's providers only, and sends the `compaction` item it
 * got back in place of the conversation it summarises. A chat model answers the first as an
 * ordinary turn (billed, then thrown away by Codex) and without the second never sees the
 * conversation, so both are refused before anything is sent (the refusal says so).
 */
const REMOTE_COMPACTION_MESSAGES: Record<string, string> = {
  compaction_trigger:
    "the input has a compaction_trigger item: Codex asked for remote compaction, which only OpenAI's Responses API performs, " +
    'and this gateway is reached through Chat Completions. Point Codex at Airlock as a custom provider ' +
    '([model_providers.airlock] with wire_api = "responses", as Airlock\'s Connect writes it) instead of openai_base_url: ' +
    'Codex then compacts with an ordinary summary request',
  compaction:
    "the input holds a compaction item, the encrypted summary of the earlier conversation that only OpenAI's Responses API " +
    'can read (a chat model would answer without that conversation). Start a new session, or send it to a profile ' +
    'that speaks Responses natively',
};

type Refusal = RequestRefusal;

/** A tool search item without a call id is one OpenAI's servers ran: chat has no call to pair it with (its tools are still offered). */
const SERVER_TOOL_SEARCH_NOTE = 'dropped tool search items without a call_id (server-executed)';

export function responsesToChatRequest(body: unknown, options: ChatRequestOptions): ChatRequestTranslation {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return badRequest('the request body must be a JSON object');
  const parsed = responsesRequestSchema().safeParse(body, { reportInput: true });
  if (!parsed.success) return badRequest(`invalid Responses request: ${describeSchemaError(parsed.error)}`);
  const request = parsed.data;
  if (request.previous_response_id) return badRequest(PREVIOUS_RESPONSE_ID_MESSAGE);
  const notes = unknownFieldNotes(body as Record<string, unknown>, responsesTranslatedFields());

  const messages: ChatMessage[] = [];
  if (request.instructions) messages.push({ role: 'system', content: request.instructions });
  const tools = [...(request.tools ?? []), ...inputTools(request.input ?? [])];
  const namer = namespacedToolNamer(tools);
  const translated = inputMessages(request.input ?? [], options, notes, namer);
  if (!translated.ok) return translated;
  messages.push(...translated.messages);
  if (messages.length === 0) return badRequest(noInputMessage(body as Record<string, unknown>, request.input ?? []));
  signaturesOfCurrentTurnOnly(messages);

  const chatBody: Record<string, unknown> = {
    ...outputBoundMember(request.max_output_tokens ?? null, options.maxTokensRefused),
    model: options.upstreamModel,
    messages: withLeadingSystem(messages),
  };
  if (request.temperature != null) chatBody['temperature'] = request.temperature;
  if (request.top_p != null) chatBody['top_p'] = request.top_p;
  Object.assign(chatBody, toolFields(tools, request, notes, namer), outputFormatFields(request, notes));
  const stream = request.stream === true;
  if (stream) {
    chatBody['stream'] = true;
    if (options.includeUsage) chatBody['stream_options'] = { include_usage: true };
  }
  const effort = request.reasoning?.effort;
  if (effort) {
    if (options.refusedReasoningEfforts.includes(effort))
      notes.push(`dropped reasoning.effort: the gateway refused reasoning_effort ${effort} for this model`);
    else setReasoningEffortLast(chatBody, effort);
  }
  const calledToolNames = clientToolNames(tools, namer);
  return { ok: true, chatBody, stream, notes, ...(Object.keys(calledToolNames).length > 0 ? { clientToolNames: calledToolNames } : {}) };
}

/** Why nothing is left to send: what the client sent instead, or the item types no chat message carries. */
function noInputMessage(body: Record<string, unknown>, input: string | ResponsesInputItem[]): string {
  if (body['input'] === undefined && body['messages'] !== undefined) {
    return 'input is required: `messages` is a Chat Completions field; a Responses request carries its conversation in `input` (or send this body to /v1/chat/completions)';
  }
  const dropped = typeof input === 'string' ? [] : input.flatMap((item) => (item.type === 'unsupported' ? [item.originalType] : []));
  if (dropped.length === 0) return 'input is required: the request has no messages';
  return `input is required: the request has no messages Airlock can translate to Chat Completions (it dropped items of type ${[...new Set(dropped)].join(', ')})`;
}

/**
 * Codex 0.144 and later send some models' tools (gpt-5.6-sol's) in `additional_tools` input items
 * instead of `tools` (https://github.com/theopenco/llmgateway/pull/3613), and the tools a tool search
 * found come in its `tool_search_output` (toolSearch.ts): chat takes them all as the request's tools.
 */
function inputTools(input: string | ResponsesInputItem[]): ResponsesTool[] {
  if (typeof input === 'string') return [];
  return input.flatMap((item) => (item.type === 'additional_tools' || item.type === 'tool_search_output' ? item.tools : []));
}

/** `target`: who the request goes to; only thinking it sent goes back (returnedReasoning.ts, relayThinking.ts). */
function inputMessages(
  input: string | ResponsesInputItem[],
  target: AnswerSource,
  notes: string[],
  namer: NamespacedToolNamer,
): { ok: true; messages: ChatMessage[] } | Refusal {
  if (typeof input === 'string') return { ok: true, messages: [{ role: 'user', content: input }] };
  const messages: ChatMessage[] = [];
  // Chat tool messages carry text only; images a tool returned follow them as a user message.
  let toolImages: ChatContentPart[] = [];
  const flushToolImages = (): void => {
    if (toolImages.length === 0) return;
    notes.push('moved images returned by tools into a user message after the tool results');
    messages.push({ role: 'user', content: toolImages });
    toolImages = [];
  };
  // Thinking that may go back to this gateway (returnedReasoning.ts) and its relay's signed blocks (relayThinking.ts), until the tool call they led to.
  let thoughts: string[] = [];
  let relayThinking: RelayThinking | null = null;
  const forgetThinking = (): void => {
    thoughts = [];
    relayThinking = null;
  };
  for (const [index, item] of input.entries()) {
    if (item.type === 'function_call_output' || item.type === 'custom_tool_call_output') {
      forgetThinking();
      const content = typeof item.output === 'string' ? item.output : toolOutputText(item.output, toolImages, notes);
      if (typeof content !== 'string') return content;
      messages.push({ role: 'tool', tool_call_id: chatCallId(item.call_id), content });
      continue;
    }
    if (item.type === 'tool_search_output' && item.call_id) {
      forgetThinking();
      messages.push({ role: 'tool', tool_call_id: chatCallId(item.call_id), content: foundToolsMessage(chatToolNames(item.tools, namer)) });
      continue;
    }
    flushToolImages();
    if (item.type === 'function_call' || item.type === 'custom_tool_call' || item.type === 'tool_search_call') {
      const call = toolCall(item, target.gatewayTag, namer);
      if (call === null) {
        addNote(notes, SERVER_TOOL_SEARCH_NOTE);
        continue;
      }
      const last = messages.at(-1);
      // Consecutive calls (and calls right after the assistant's text) form one assistant turn.
      const turn: AssistantMessage = last?.role === 'assistant' ? last : { role: 'assistant', content: null };
      if (turn !== last) messages.push(turn);
      turn.tool_calls = [...(turn.tool_calls ?? []), call];
      if (thoughts.length > 0) turn.reasoning_content = joinedReasoning(turn.reasoning_content, thoughts);
      if (relayThinking !== null) addRelayThinking(turn, relayThinking);
      forgetThinking();
    } else if (item.type === 'message') {
      // An assistant's text may be followed by its calls, in the same turn: its thinking waits for them.
      if (item.role !== 'assistant') forgetThinking();
      const message = messageItem(item, index, notes);
      if ('ok' in message) return message;
      messages.push(message);
    } else if (item.type === 'reasoning') {
      // Other thinking is the upstream's own earlier thoughts, which a chat gateway cannot take back.
      const relay = relayThinkingOfMark(item.encrypted_content, target);
      if (relay !== null) relayThinking = joinedRelayThinking(relayThinking, relay);
      else if (isReturnableReasoning(item.encrypted_content, target.gatewayTag)) thoughts.push(...summaryTexts(item));
    } else if (item.type === 'additional_tools') {
      // Its tools are offered with the request's (inputTools).
    } else if (item.type === 'tool_search_output') {
      addNote(notes, SERVER_TOOL_SEARCH_NOTE);
    } else if (item.type === 'unsupported') {
      const remoteCompaction = REMOTE_COMPACTION_MESSAGES[item.originalType];
      if (remoteCompaction !== undefined) return unfixableRequest(remoteCompaction);
      if (item.originalType === 'item_reference') return badRequest(ITEM_REFERENCE_MESSAGE);
      addNote(notes, `dropped input items of type ${item.originalType}`);
    }
  }
  flushToolImages();
  return { ok: true, messages };
}

/**
 * A call in the input as chat's, under the name its tool is offered under; a custom tool's text goes as its one argument;
 * its signature only to the gateway `gatewayTag` names when that one signed it (thoughtSignature.ts).
 */
function toolCall(
  item: Extract<ResponsesInputItem, { type: 'function_call' | 'custom_tool_call' | 'tool_search_call' }>,
  gatewayTag: string,
  namer: NamespacedToolNamer,
): ChatToolCall | null {
  if (item.type === 'tool_search_call') {
    if (!item.call_id) return null;
    return {
      ...chatCallIdentity(item.call_id, gatewayTag),
      type: 'function',
      function: { name: TOOL_SEARCH_NAME, arguments: toolSearchCallArguments(item.arguments) },
    };
  }
  const name = item.namespace ? namer.callName({ namespace: item.namespace, name: item.name }) : item.name;
  const chatArguments = item.type === 'custom_tool_call' ? customToolArguments(item.input) : item.arguments;
  return { ...chatCallIdentity(item.call_id, gatewayTag), type: 'function', function: { name, arguments: chatArguments } };
}

function summaryTexts(item: Extract<ResponsesInputItem, { type: 'reasoning' }>): string[] {
  return (item.summary ?? []).flatMap((part) => (part.text ? [part.text] : []));
}

function messageItem(item: Extract<ResponsesInputItem, { type: 'message' }>, index: number, notes: string[]): ChatMessage | Refusal {
  const role = item.role === 'developer' ? 'system' : item.role;
  if (typeof item.content === 'string') return { role, content: item.content };
  if (role === 'user') {
    const parts: ChatContentPart[] = [];
    for (const part of item.content) {
      const translated = contentPart(part, notes);
      if (translated !== null && 'ok' in translated) return translated;
      if (translated !== null) parts.push(translated);
    }
    if (parts.length === 0 && item.content.length > 0) {
      const dropped = item.content.map((part) => (part.type === 'unsupported' ? part.originalType : part.type));
      return emptiedUserMessage(`input.${index}.content`, dropped, 'input_text, input_image and input_file parts');
    }
    return { role, content: userContent(parts) };
  }
  const images: ChatContentPart[] = [];
  const text = partsToText(item.content, images, notes);
  if (typeof text !== 'string') return text;
  if (images.length > 0) addNote(notes, `dropped images in ${item.role} messages`);
  return { role, content: text };
}

function contentPart(part: ResponsesContentPart, notes: string[]): ChatContentPart | Refusal | null {
  switch (part.type) {
    case 'input_text':
    case 'output_text':
      return textPart(part.text);
    case 'refusal':
      return textPart(part.refusal);
    case 'input_image':
      if (!part.image_url)
        return badRequest(
          'input_image needs image_url (a URL or a data: URL); file_id needs server-side files, which Airlock does not keep',
        );
      return imagePart(part.image_url, part.detail ?? undefined);
    case 'input_file':
      return unfixableRequest('input_file parts cannot be translated to Chat Completions; use a model served natively');
    case 'unsupported':
      addNote(notes, `dropped content parts of type ${part.originalType}`);
      return null;
  }
}

/** A tool's output parts as its tool message's text: what it held, when no part of it has a chat form. */
function toolOutputText(parts: ResponsesContentPart[], images: ChatContentPart[], notes: string[]): string | Refusal {
  const dropped = parts.flatMap((part) => (part.type === 'unsupported' ? [part.originalType] : []));
  if (dropped.length > 0 && dropped.length === parts.length) {
    for (const type of dropped) addNote(notes, `dropped content parts of type ${type}`);
    return untranslatedToolResult(dropped);
  }
  return partsToText(parts, images, notes);
}

/** Joins the text parts; images go to `images` for the caller to place. */
function partsToText(parts: ResponsesContentPart[], images: ChatContentPart[], notes: string[]): string | Refusal {
  const texts: string[] = [];
  for (const part of parts) {
    const translated = contentPart(part, notes);
    if (translated === null) continue;
    if ('ok' in translated) return translated;
    if (translated.type === 'text') texts.push(translated.text);
    else images.push(translated);
  }
  return texts.join('');
}

function outputFormatFields(request: ResponsesRequest, notes: string[]): Record<string, unknown> {
  if (request.text?.verbosity) notes.push('dropped text.verbosity: Chat Completions has no equivalent');
  const format = request.text?.format;
  if (!format || format.type === 'text') return {};
  if (format.type === 'json_object') return { response_format: { type: 'json_object' } };
  if (format.type === 'json_schema' && format.schema !== undefined) {
    const jsonSchema: Record<string, unknown> = { name: format.name ?? 'output', schema: format.schema };
    if (format.strict != null) jsonSchema['strict'] = format.strict;
    return { response_format: { type: 'json_schema', json_schema: jsonSchema } };
  }
  notes.push(`dropped text.format of type ${format.type}`);
  return {};
}
