/** The Chat Completions request shapes both request translators build. */

export type ChatContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string; detail?: string } };

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** `reasoning_content`: thinking handed back for a tool-call turn (returnedReasoning.ts). */
export interface AssistantMessage {
  role: 'assistant';
  content: string | null;
  tool_calls?: ChatToolCall[];
  reasoning_content?: string;
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

export function textPart(text: string): ChatContentPart {
  return { type: 'text', text };
}

export function imagePart(url: string, detail?: string): ChatContentPart {
  return detail === undefined ? { type: 'image_url', image_url: { url } } : { type: 'image_url', image_url: { url, detail } };
}
