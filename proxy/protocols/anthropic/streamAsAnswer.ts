import { isRecord } from '../../core/isRecord.ts';
import { type StreamAssembler, UNREPORTED } from '../adapter.ts';
import { eventJson, eventType, sseFrame } from '../sse.ts';
import { AnthropicStreamObserver } from './observer.ts';

type Json = Record<string, unknown>;

/** Adds one content_block_delta to its block, as the Anthropic SDKs' MessageStream does. */
function addDelta(block: Json, delta: Json, toolInputs: Map<Json, string>): void {
  if (delta.type === 'text_delta' && typeof delta.text === 'string') block.text = `${block.text ?? ''}${delta.text}`;
  else if (delta.type === 'thinking_delta' && typeof delta.thinking === 'string')
    block.thinking = `${block.thinking ?? ''}${delta.thinking}`;
  else if (delta.type === 'signature_delta' && typeof delta.signature === 'string') block.signature = delta.signature;
  else if (delta.type === 'input_json_delta' && typeof delta.partial_json === 'string') {
    toolInputs.set(block, (toolInputs.get(block) ?? '') + delta.partial_json);
  } else if (delta.type === 'citations_delta' && delta.citation !== undefined) {
    block.citations = [...(Array.isArray(block.citations) ? block.citations : []), delta.citation];
  }
}

/** A tool call's input, streamed as JSON text: parsed once whole ('' is the empty input, as the SDKs read it). */
function toolInputOf(json: string): unknown {
  if (json === '') return {};
  try {
    return JSON.parse(json);
  } catch {
    return json;
  }
}

/**
 * A Messages stream put together as the message it amounts to: message_start's message, its content
 * blocks built from their deltas, and message_delta's stop reason and final counts (the counts it
 * leaves out, or sends as null, are message_start's).
 */
export function messageOfStream(): StreamAssembler {
  const observer = new AnthropicStreamObserver(UNREPORTED);
  let message: Json = {};
  const blocks = new Map<number, Json>();
  const toolInputs = new Map<Json, string>();
  return {
    add(event) {
      if (observer.complete) return;
      observer.observe(event);
      const json = eventJson(event);
      if (json === null) return;
      const type = eventType(event, json);
      const index = typeof json.index === 'number' ? json.index : -1;
      if (type === 'message_start' && isRecord(json.message)) message = { ...json.message };
      else if (type === 'content_block_start' && isRecord(json.content_block)) blocks.set(index, { ...json.content_block });
      else if (type === 'content_block_delta' && isRecord(json.delta)) {
        const block = blocks.get(index);
        if (block) addDelta(block, json.delta, toolInputs);
      } else if (type === 'message_delta') {
        if (isRecord(json.delta)) message = { ...message, ...json.delta };
        const given = isRecord(json.usage) ? Object.entries(json.usage).filter(([, value]) => value !== null) : [];
        message.usage = { ...(isRecord(message.usage) ? message.usage : {}), ...Object.fromEntries(given) };
      }
    },
    result() {
      const content = [...blocks.entries()]
        .sort(([a], [b]) => a - b)
        .map(([, block]) => (toolInputs.has(block) ? { ...block, input: toolInputOf(toolInputs.get(block) ?? '') } : block));
      const answered = message.type === 'message';
      return { answer: { ...message, content }, whole: observer.complete, answered, error: observer.upstreamError };
    },
  };
}

/** A block as content_block_start opens it, and the deltas that fill it in. */
function blockEvents(block: Json): { start: Json; deltas: Json[] } {
  if (block.type === 'text' && typeof block.text === 'string') {
    return { start: { ...block, text: '' }, deltas: [{ type: 'text_delta', text: block.text }] };
  }
  if (block.type === 'tool_use') {
    return { start: { ...block, input: {} }, deltas: [{ type: 'input_json_delta', partial_json: JSON.stringify(block.input ?? {}) }] };
  }
  if (block.type === 'thinking' && typeof block.thinking === 'string') {
    const signature = typeof block.signature === 'string' ? [{ type: 'signature_delta', signature: block.signature }] : [];
    return {
      start: { ...block, thinking: '', signature: '' },
      deltas: [{ type: 'thinking_delta', thinking: block.thinking }, ...signature],
    };
  }
  // Whole as it is (redacted thinking, a server tool's result): no delta builds it.
  return { start: block, deltas: [] };
}

/**
 * A whole message as the Messages stream a client asked for: message_start, each content block
 * opened, filled in by one delta and stopped, message_delta with the stop reason and output count,
 * message_stop. Null when it is no message (an error).
 */
export function messageAsStream(message: object): string | null {
  if (!isRecord(message) || message.type !== 'message' || !Array.isArray(message.content)) return null;
  const usage = isRecord(message.usage) ? message.usage : {};
  let frames = sseFrame('message_start', {
    type: 'message_start',
    message: { ...message, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 0 } },
  });
  for (const [index, block] of message.content.filter(isRecord).entries()) {
    const { start, deltas } = blockEvents(block);
    frames += sseFrame('content_block_start', { type: 'content_block_start', index, content_block: start });
    for (const delta of deltas) frames += sseFrame('content_block_delta', { type: 'content_block_delta', index, delta });
    frames += sseFrame('content_block_stop', { type: 'content_block_stop', index });
  }
  frames += sseFrame('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: message.stop_reason ?? 'end_turn', stop_sequence: message.stop_sequence ?? null },
    usage: { output_tokens: usage.output_tokens ?? 0 },
  });
  return frames + sseFrame('message_stop', { type: 'message_stop' });
}
