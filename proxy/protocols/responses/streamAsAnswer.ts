import { isRecord } from '../../core/isRecord.ts';
import { type StreamedAnswer, UNREPORTED } from '../adapter.ts';
import { eventJson, readSseEvents } from '../sse.ts';
import { ResponsesStreamObserver } from './observer.ts';

/**
 * A whole Responses event stream's bytes as the response they amount to: the final event
 * (`response.completed` or `response.incomplete`) carries the whole response object itself.
 */
export function responseOfStream(chunks: readonly Buffer[]): StreamedAnswer {
  const observer = new ResponsesStreamObserver(UNREPORTED);
  let answer: Record<string, unknown> = {};
  readSseEvents(chunks, (event) => {
    if (observer.complete) return;
    observer.observe(event);
    const response = eventJson(event)?.response;
    if (observer.complete && isRecord(response)) answer = response;
  });
  return { answer, whole: observer.complete, answered: Array.isArray(answer.output), error: observer.upstreamError };
}
