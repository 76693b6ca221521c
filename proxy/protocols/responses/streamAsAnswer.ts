import { isRecord } from '../../core/isRecord.ts';
import { type StreamAssembler, UNREPORTED } from '../adapter.ts';
import { eventJson, sseFrame } from '../sse.ts';
import { ResponsesStreamObserver } from './observer.ts';

type Json = Record<string, unknown>;

/**
 * A Responses stream put together as the response it amounts to: the final event
 * (`response.completed` or `response.incomplete`) carries the whole response object itself.
 */
export function responseOfStream(): StreamAssembler {
  const observer = new ResponsesStreamObserver(UNREPORTED);
  let answer: Json = {};
  return {
    add(event) {
      if (observer.complete) return;
      observer.observe(event);
      const response = observer.complete ? eventJson(event)?.response : undefined;
      if (isRecord(response)) answer = response;
    },
    result: () => ({ answer, whole: observer.complete, answered: Array.isArray(answer.output), error: observer.upstreamError }),
  };
}

/**
 * A whole response as the Responses stream a client asked for: response.created, each output item
 * added and done (a message's text parts as one delta each, which Codex and the SDKs print), then
 * the final event with the whole response. Null when it holds no output (an error).
 */
export function responseAsStream(response: object): string | null {
  if (!isRecord(response) || !Array.isArray(response.output)) return null;
  const frames: string[] = [];
  const emit = (type: string, data: Json): void => {
    frames.push(sseFrame(type, { type, sequence_number: frames.length, ...data }));
  };
  emit('response.created', { response: { ...response, status: 'in_progress', output: [] } });
  for (const [outputIndex, item] of response.output.entries()) {
    if (!isRecord(item)) continue;
    const parts = Array.isArray(item.content) ? item.content.filter(isRecord) : null;
    emit('response.output_item.added', {
      output_index: outputIndex,
      item: { ...item, status: 'in_progress', ...(parts ? { content: [] } : {}) },
    });
    for (const [contentIndex, part] of (parts ?? []).entries()) {
      const at = { item_id: item.id, output_index: outputIndex, content_index: contentIndex };
      const text = typeof part.text === 'string' ? part.text : null;
      emit('response.content_part.added', { ...at, part: text === null ? part : { ...part, text: '' } });
      if (part.type === 'output_text' && text !== null) {
        emit('response.output_text.delta', { ...at, delta: text, logprobs: [] });
        emit('response.output_text.done', { ...at, text, logprobs: [] });
      }
      emit('response.content_part.done', { ...at, part });
    }
    emit('response.output_item.done', { output_index: outputIndex, item });
  }
  emit(finalEventOf(response.status), { response });
  return frames.join('');
}

/** The event that ends a response of this status: Codex and the SDKs take response.completed as a finished turn, however empty. */
function finalEventOf(status: unknown): string {
  if (status === 'incomplete') return 'response.incomplete';
  return status === 'failed' ? 'response.failed' : 'response.completed';
}
