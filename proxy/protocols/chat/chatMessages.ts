/** The Chat Completions request shapes both request translators build. */

export type ChatContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string; detail?: string } };

export interface ChatToolCall {
  id: string;
  /** Gemini's thought signature, given back on the call it came with (thoughtSignature.ts). */
  extra_content?: { google: { thought_signature: string } };
  type: 'function';
  function: { name: string; arguments: string };
}

/**
 * `reasoning_content`: thinking handed back for a tool-call turn (returnedReasoning.ts);
 * `thinking_blocks`, `reasoning_details`: a relay's signed thinking blocks, handed back likewise (relayThinking.ts).
 */
export interface AssistantMessage {
  role: 'assistant';
  content: string | null;
  tool_calls?: ChatToolCall[];
  reasoning_content?: string;
  thinking_blocks?: Record<string, unknown>[];
  reasoning_details?: Record<string, unknown>[];
}

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | ChatContentPart[] }
  | AssistantMessage
  | { role: 'tool'; tool_call_id: string; content: string };

export interface ChatFunctionTool {
  type: 'function';
  function: { name: string; description?: string; parameters: Record<string, unknown>; strict?: boolean };
}

export type ChatToolChoice = 'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } };

/**
 * Text-only content becomes one string: every chat upstream accepts that, while some reject
 * arrays of parts for models without image input. Texts are joined by a blank line.
 */
export function userContent(parts: ChatContentPart[]): string | ChatContentPart[] {
  if (parts.some((part) => part.type !== 'text')) return parts;
  return parts.map((part) => (part.type === 'text' ? part.text : '')).join('\n\n');
}

/**
 * The tool message a client-run tool search's result becomes (Codex's tool_search_output, Claude
 * Code's tool_reference blocks): the chat names of the tools it found, now among the request's tools.
 */
export function foundToolsMessage(chatNames: readonly string[]): string {
  if (chatNames.length === 0) return 'No tools matched the search.';
  return `Tools found, now available to call: ${chatNames.join(', ')}`;
}

/**
 * A tool message in place of a result every part of which has no chat form: empty, the model took
 * it for a tool that returned nothing, and may call it again.
 */
export function untranslatedToolResult(droppedTypes: readonly string[]): string {
  return `[The tool's result is not shown: it held only ${[...new Set(droppedTypes)].join(', ')} content, which Chat Completions cannot carry.]`;
}

export function textPart(text: string): ChatContentPart {
  return { type: 'text', text };
}

export function imagePart(url: string, detail?: string): ChatContentPart {
  return detail === undefined ? { type: 'image_url', image_url: { url } } : { type: 'image_url', image_url: { url, detail } };
}

/**
 * One system message, first: the chat templates of Qwen3.5/3.6 (vllm#41114, opencode#16560) and
 * Gemma 3 (suitenumerique/conversations#197) refuse a system message anywhere else, a second one at
 * the start included, and vLLM and llama.cpp apply them as they are (vibe_tavern#44). So the system and
 * developer messages a conversation opens with become one, and one given later (Codex's developer
 * message after a change of settings) stays where it stood, as a user message marked as
 * instructions: merged into the first it would lose when it was given (the newer rule then reads as
 * the older's equal), and change the prompt's start, which a gateway's prefix cache reuses.
 */
export function withLeadingSystem(messages: ChatMessage[]): ChatMessage[] {
  const firstTurn = messages.findIndex((message) => message.role !== 'system');
  const opening = firstTurn === -1 ? messages : messages.slice(0, firstTurn);
  const rest = firstTurn === -1 ? [] : messages.slice(firstTurn);
  if (opening.length <= 1 && !rest.some((message) => message.role === 'system')) return messages;
  const systemText = opening
    .map((message) => (message.role === 'system' ? message.content : ''))
    .filter((text) => text !== '')
    .join('\n\n');
  return [
    ...(systemText === '' ? [] : [{ role: 'system' as const, content: systemText }]),
    ...rest.map(
      (message): ChatMessage => (message.role === 'system' ? { role: 'user', content: lateInstructions(message.content) } : message),
    ),
  ];
}

function lateInstructions(text: string): string {
  return `<system-instructions>\n${text}\n</system-instructions>`;
}
