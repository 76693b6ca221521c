import { readChatChunk } from '../../../proxy/protocols/chat/chatShapes.ts';
import type { ChatStreamTranslator, StreamFailure } from '../../../proxy/protocols/streamTranslator.ts';
/** Builders for Chat Completions stream chunks and a reader for translated SSE frames (tests only). */

export interface ToolPiece {
  index: number;
  id?: string;
  name?: string;
  arguments?: string;
}

export function textChunk(content: string): object {
  return { id: 'chatcmpl-1', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content }, finish_reason: null }] };
}

/** A reasoning model's thinking, in the field its gateway uses. */
export function reasoningChunk(text: string, field: 'reasoning_content' | 'reasoning' = 'reasoning_content'): object {
  return { id: 'chatcmpl-1', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { [field]: text }, finish_reason: null }] };
}

/** A model declining, as OpenAI streams it: `delta.refusal` instead of `delta.content`. */
export function refusalChunk(refusal: string): object {
  return { id: 'chatcmpl-1', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { refusal }, finish_reason: null }] };
}

export function toolChunk(...pieces: ToolPiece[]): object {
  const toolCalls = pieces.map((piece) => ({
    index: piece.index,
    ...(piece.id === undefined ? {} : { id: piece.id, type: 'function' }),
    function: {
      ...(piece.name === undefined ? {} : { name: piece.name }),
      ...(piece.arguments === undefined ? {} : { arguments: piece.arguments }),
    },
  }));
  return { id: 'chatcmpl-1', choices: [{ index: 0, delta: { tool_calls: toolCalls }, finish_reason: null }] };
}

export function finishChunk(finishReason: string): object {
  return { id: 'chatcmpl-1', choices: [{ index: 0, delta: {}, finish_reason: finishReason }] };
}

/** The chunk with its choice's finish_reason set (a usage chunk gets a choice with an empty delta). */
export function withFinishReason(chunk: object, finishReason: string): object {
  const { choices } = chunk as { choices: Record<string, unknown>[] };
  const [choice] = choices.length > 0 ? choices : [{ index: 0, delta: {} }];
  return { ...chunk, choices: [{ ...choice, finish_reason: finishReason }] };
}

export function usageChunk(promptTokens: number, completionTokens: number, cachedTokens?: number): object {
  const usage: Record<string, unknown> = {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
  };
  if (cachedTokens !== undefined) usage['prompt_tokens_details'] = { cached_tokens: cachedTokens };
  return { id: 'chatcmpl-1', choices: [], usage };
}

/** Every cut of `text` into two pieces, at each character (code point) boundary. */
export function splitsAtEveryCharacter(text: string): [string, string][] {
  const characters = Array.from(text);
  return characters.map((_, cut) => [characters.slice(0, cut).join(''), characters.slice(cut).join('')]);
}

/** The argument string cut into single characters (the finest split an upstream can send). */
export function characterPieces(text: string): string[] {
  return Array.from(text);
}

export interface SseFrame {
  event: string;
  data: Record<string, unknown>;
}

/** Parses complete frames strictly: each must be `event: x\ndata: <json>\n\n` with a matching type. */
export function parseFrames(frames: string[]): SseFrame[] {
  return frames.map((frame) => {
    const match = /^event: ([^\n]+)\ndata: ([^\n]+)\n\n$/.exec(frame);
    if (!match || match[1] === undefined || match[2] === undefined) throw new Error(`malformed SSE frame: ${JSON.stringify(frame)}`);
    const data = JSON.parse(match[2]) as Record<string, unknown>;
    if (data['type'] !== match[1]) throw new Error(`event name ${match[1]} differs from data.type ${String(data['type'])}`);
    return { event: match[1], data };
  });
}

/** A translator fed chunk objects, each read as the relay reads it (chatChunkOf), for tests that write chunks as JSON. */
export function fedChunks(translator: ChatStreamTranslator): {
  push(chunk: object): string[];
  finish(): string[];
  fail(error: StreamFailure): string[];
} {
  return {
    push: (chunk) => translator.push(readChatChunk(chunk as Record<string, unknown>)),
    finish: () => translator.finish(),
    fail: (error) => translator.fail(error),
  };
}
