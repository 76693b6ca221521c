import type { ServerResponse } from 'node:http';
import { sendJson, startEventStream } from './respond.ts';

/**
 * A full gateway also speaks Anthropic Messages and the Responses API itself (LiteLLM, New API with
 * Claude channels, OpenRouter's Responses beta), which the seed contract does not promise. Shapes
 * as Anthropic's Messages API reference (streaming: message_start … message_stop) and OpenAI's
 * Responses API reference (streaming events, response.completed) describe them. Every answer
 * reports the same usage, so a test can tell a reading of it from an estimate.
 */
export type NativeProtocol = 'messages' | 'responses';

export const NATIVE_USAGE = { inputTokens: 12, outputTokens: 4 } as const;
export const NATIVE_TEXT = 'native answer';

export interface NativeOptions {
  /** After the final event the stream stays open until the other side closes it (a gateway slow to end its response). */
  holdOpenAfterEnd: boolean;
}

const event = (name: string, data: object): string => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;

function messageBody(model: string, id: string): Record<string, unknown> {
  return {
    id,
    type: 'message',
    role: 'assistant',
    model,
    content: [{ type: 'text', text: NATIVE_TEXT }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: NATIVE_USAGE.inputTokens, output_tokens: NATIVE_USAGE.outputTokens },
  };
}

function messageEvents(model: string, id: string): string[] {
  const start = {
    ...messageBody(model, id),
    content: [],
    stop_reason: null,
    usage: { input_tokens: NATIVE_USAGE.inputTokens, output_tokens: 1 },
  };
  return [
    event('message_start', { type: 'message_start', message: start }),
    event('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
    event('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: NATIVE_TEXT } }),
    event('content_block_stop', { type: 'content_block_stop', index: 0 }),
    event('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: NATIVE_USAGE.outputTokens },
    }),
    event('message_stop', { type: 'message_stop' }),
  ];
}

function responseBody(model: string, id: string, status: 'in_progress' | 'completed'): Record<string, unknown> {
  const done = status === 'completed';
  return {
    id,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status,
    model,
    output: done ? [messageItem(id, 'completed')] : [],
    usage: done
      ? {
          input_tokens: NATIVE_USAGE.inputTokens,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: NATIVE_USAGE.outputTokens,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: NATIVE_USAGE.inputTokens + NATIVE_USAGE.outputTokens,
        }
      : null,
    error: null,
    incomplete_details: null,
  };
}

function messageItem(responseId: string, status: 'in_progress' | 'completed'): Record<string, unknown> {
  const content = status === 'completed' ? [{ type: 'output_text', text: NATIVE_TEXT, annotations: [] }] : [];
  return { id: `msg_${responseId}`, type: 'message', status, role: 'assistant', content };
}

function responseEvents(model: string, id: string): string[] {
  let sequence = 0;
  const frame = (type: string, fields: object): string => event(type, { type, sequence_number: sequence++, ...fields });
  const part = { item_id: `msg_${id}`, output_index: 0, content_index: 0 };
  return [
    frame('response.created', { response: responseBody(model, id, 'in_progress') }),
    frame('response.output_item.added', { output_index: 0, item: messageItem(id, 'in_progress') }),
    frame('response.content_part.added', { ...part, part: { type: 'output_text', text: '', annotations: [] } }),
    frame('response.output_text.delta', { ...part, delta: NATIVE_TEXT, logprobs: [] }),
    frame('response.output_text.done', { ...part, text: NATIVE_TEXT, logprobs: [] }),
    frame('response.content_part.done', { ...part, part: { type: 'output_text', text: NATIVE_TEXT, annotations: [] } }),
    frame('response.output_item.done', { output_index: 0, item: messageItem(id, 'completed') }),
    frame('response.completed', { response: responseBody(model, id, 'completed') }),
  ];
}

/** A native answer's events, each a whole SSE frame: a test scripts a stream that breaks at one of them. */
export function nativeStreamEvents(protocol: NativeProtocol, model: string, id: string): string[] {
  return protocol === 'messages' ? messageEvents(model, id) : responseEvents(model, id);
}

/** A native answer not streamed, as its JSON. */
export function nativeAnswerBody(protocol: NativeProtocol, model: string, id: string): Record<string, unknown> {
  return protocol === 'messages' ? messageBody(model, id) : responseBody(model, id, 'completed');
}

/** What the simulator signs its own thinking with; any other signature is one it cannot verify. */
export const NATIVE_THINKING_SIGNATURE = 'sim-signed:EqQBCkYIBxgCKkA';
export const NATIVE_ENCRYPTED_REASONING = 'sim-encrypted:gAAAAABo';

/**
 * A native gateway verifies the thinking it is handed back: Anthropic refuses a thinking block whose
 * signature it did not make (its docs: thinking goes back complete and unmodified, signature
 * included); OpenAI refuses a reasoning item's encrypted_content it cannot decrypt
 * (`invalid_encrypted_content`, codex#8145) and vLLM any encrypted_content (vllm#28248).
 */
function unverifiableThinking(protocol: NativeProtocol, json: Record<string, unknown>): string | null {
  if (protocol === 'messages') {
    const messages = Array.isArray(json.messages) ? (json.messages as { content?: unknown }[]) : [];
    const blocks = messages.flatMap((message) => (Array.isArray(message.content) ? (message.content as Record<string, unknown>[]) : []));
    const bad = blocks.find((block) => block.type === 'thinking' && block.signature !== NATIVE_THINKING_SIGNATURE);
    return bad ? 'messages: Invalid `signature` in `thinking` block' : null;
  }
  const input = Array.isArray(json.input) ? (json.input as Record<string, unknown>[]) : [];
  const bad = input.find((item) => item.type === 'reasoning' && item.encrypted_content !== NATIVE_ENCRYPTED_REASONING);
  return bad ? `The encrypted content ${String(bad.encrypted_content)} could not be verified.` : null;
}

/** Answers a native Messages, count_tokens or Responses request (already authorised). */
export async function answerNative(
  response: ServerResponse,
  protocol: NativeProtocol | 'count_tokens',
  json: Record<string, unknown>,
  sequence: string,
  options: NativeOptions,
  closed: AbortSignal,
): Promise<void> {
  const model = typeof json.model === 'string' ? json.model : 'unknown';
  if (protocol === 'count_tokens') {
    sendJson(response, 200, { input_tokens: NATIVE_USAGE.inputTokens });
    return;
  }
  const refusal = unverifiableThinking(protocol, json);
  if (refusal !== null) {
    const error =
      protocol === 'messages'
        ? { type: 'error', error: { type: 'invalid_request_error', message: refusal } }
        : { error: { type: 'invalid_request_error', code: 'invalid_encrypted_content', message: refusal, param: null } };
    sendJson(response, 400, error);
    return;
  }
  const id = protocol === 'messages' ? `msg_${sequence}` : `resp_${sequence}`;
  if (json.stream !== true) {
    sendJson(response, 200, nativeAnswerBody(protocol, model, id));
    return;
  }
  startEventStream(response);
  response.write(nativeStreamEvents(protocol, model, id).join(''));
  if (options.holdOpenAfterEnd && !closed.aborted) {
    await new Promise<void>((resolve) => closed.addEventListener('abort', () => resolve(), { once: true }));
  }
  response.end();
}
