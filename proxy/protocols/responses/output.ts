import type { TokenUsage } from '../../contracts/usage.ts';
import { type AnswerSource, thinkingMark } from '../chat/relayThinking.ts';
import type { StreamBlock } from '../chat/chatStreamBlocks.ts';
import type { ClientToolNames } from '../requestResult.ts';
import { calledTool } from './namespacedTools.ts';
import { customToolInput } from './customTools.ts';
import { toolSearchArguments } from './toolSearch.ts';

/** Building blocks of a Responses API reply, shared by the plain and the streaming translator. */

export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed';

export interface ResponseSnapshotInput {
  responseId: string;
  requestedModel: string;
  createdAtSec: number;
  status: ResponseStatus;
  output: Record<string, unknown>[];
  usage?: TokenUsage | null;
  incompleteReason?: string | null;
  error?: { code: string; message: string } | null;
}

/** Chat's `length` and `content_filter` endings are what Responses reports as incomplete. */
export function responseEnding(finishReason: string | null): { status: 'completed' | 'incomplete'; incompleteReason: string | null } {
  if (finishReason === 'length') return { status: 'incomplete', incompleteReason: 'max_output_tokens' };
  if (finishReason === 'content_filter') return { status: 'incomplete', incompleteReason: 'content_filter' };
  return { status: 'completed', incompleteReason: null };
}

export function responsesUsage(usage: TokenUsage): Record<string, unknown> {
  const inputDetails: Record<string, number> = { cached_tokens: usage.cachedInputTokens ?? 0 };
  // Where OpenAI names prompt-cache writes in a Responses usage; only when there are some.
  if (usage.cacheWriteInputTokens !== undefined) inputDetails.cache_write_tokens = usage.cacheWriteInputTokens;
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: inputDetails,
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}

export function responseSnapshot(input: ResponseSnapshotInput): Record<string, unknown> {
  return {
    id: input.responseId,
    object: 'response',
    created_at: input.createdAtSec,
    status: input.status,
    model: input.requestedModel,
    output: input.output,
    usage: input.usage ? responsesUsage(input.usage) : null,
    incomplete_details: input.incompleteReason ? { reason: input.incompleteReason } : null,
    error: input.error ?? null,
  };
}

const ITEM_ID_PREFIX = { reasoning: 'rs', text: 'msg', refusal: 'msg', tool: 'fc' } as const;
/** OpenAI's prefix for a custom tool call's item. */
const CUSTOM_TOOL_CALL_ID_PREFIX = 'ctc';
const TOOL_SEARCH_CALL_ID_PREFIX = 'tsc';

/** Item ids are derived from the response id so that they are unique and reproducible. */
export function outputItemId(responseId: string, block: StreamBlock, clientToolNames: ClientToolNames): string {
  const base = responseId.startsWith('resp_') ? responseId.slice('resp_'.length) : responseId;
  const prefix = isCustomToolCall(block, clientToolNames)
    ? CUSTOM_TOOL_CALL_ID_PREFIX
    : isToolSearchCall(block, clientToolNames)
      ? TOOL_SEARCH_CALL_ID_PREFIX
      : ITEM_ID_PREFIX[block.kind];
  return `${prefix}_${base}_${block.position}`;
}

/** A call of a custom tool (customTools.ts): its item carries the raw text, not the function's arguments. */
export function isCustomToolCall(block: StreamBlock, clientToolNames: ClientToolNames): boolean {
  return block.kind === 'tool' && calledTool(clientToolNames, block.name).freeform === true;
}

/** A call of a client-executed tool search (toolSearch.ts): its item carries the arguments as an object. */
export function isToolSearchCall(block: StreamBlock, clientToolNames: ClientToolNames): boolean {
  return block.kind === 'tool' && calledTool(clientToolNames, block.name).toolSearch === true;
}

export function outputTextPart(text: string): Record<string, unknown> {
  return { type: 'output_text', text, annotations: [] };
}

/** A model declining: a message's content part of its own, as OpenAI's Responses API gives it. */
export function refusalPart(refusal: string): Record<string, unknown> {
  return { type: 'refusal', refusal };
}

/**
 * A chat model's thinking goes in the reasoning item's summary: Responses clients show the summary
 * (Codex prints it as the model's thinking) and keep raw `reasoning_text` to themselves unless told
 * otherwise, while a chat gateway's thinking is the only account of it the user will ever get.
 */
export function reasoningSummaryPart(text: string): Record<string, unknown> {
  return { type: 'summary_text', text };
}

/**
 * `clientToolNames`: the request's tools chat could not name as the client does (namespacedTools.ts);
 * `source`: who answered, named in a reasoning item's mark.
 */
export function outputItem(
  responseId: string,
  block: StreamBlock,
  status: 'in_progress' | 'completed',
  clientToolNames: ClientToolNames,
  source: AnswerSource,
): Record<string, unknown> {
  const id = outputItemId(responseId, block, clientToolNames);
  if (block.kind === 'reasoning') {
    const summary = status === 'completed' ? [reasoningSummaryPart(block.text)] : [];
    // Clients hand encrypted_content back as they got it: Airlock's mark of where this thinking came from
    // (returnedReasoning.ts), or the relay's signed blocks (relayThinking.ts).
    return { id, type: 'reasoning', status, summary, encrypted_content: thinkingMark(block.field, block.relayThinking, source) };
  }
  if (block.kind === 'text' || block.kind === 'refusal') {
    const part = block.kind === 'text' ? outputTextPart(block.text) : refusalPart(block.text);
    const content = status === 'completed' ? [part] : [];
    return { id, type: 'message', status, role: 'assistant', content };
  }
  const { freeform, toolSearch, ...tool } = calledTool(clientToolNames, block.name);
  // Its arguments are an object, whole only once the chat arguments are: in progress it has none yet.
  if (toolSearch) {
    const searchArguments = status === 'completed' ? toolSearchArguments(block.arguments) : {};
    return { id, type: 'tool_search_call', status, call_id: block.callId, execution: 'client', arguments: searchArguments };
  }
  // A custom call's text is known only once its arguments are whole (JSON): in progress it has none yet.
  if (freeform) {
    const input = status === 'completed' ? customToolInput(block.arguments) : '';
    return { id, type: 'custom_tool_call', status, call_id: block.callId, ...tool, input };
  }
  const callArguments = status === 'completed' ? functionCallArguments(block.arguments) : block.arguments;
  return { id, type: 'function_call', status, call_id: block.callId, ...tool, arguments: callArguments };
}

/**
 * A whole function call's arguments as the Responses API gives them, JSON text its clients parse:
 * `{}` where the chat call's are empty, as some servers send them for a tool without parameters
 * (sigoden/aichat#1217, microsoft/vscode-copilot-chat#1560); `""` made the Agents SDK throw
 * (openai/openai-agents-js#664).
 */
export function functionCallArguments(chatArguments: string): string {
  return chatArguments.trim() === '' ? '{}' : chatArguments;
}
