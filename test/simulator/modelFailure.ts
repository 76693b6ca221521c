import type { ServerResponse } from 'node:http';
import { framingFor } from './dialectStream.ts';
import { defaultErrorForStatus, errorBody } from './errors.ts';
import { renderError } from './gatewayErrors.ts';
import { startEventStream } from './respond.ts';
import type { Fault } from './types.ts';
import { sendGatewayError, type Voice } from './voice.ts';

type ModelFails = Extract<Fault, { kind: 'modelFails' }>;

/** The chunk envelope a dialect's stream error rides in when it is a chunk (OpenRouter). */
export interface ChunkIdentity {
  id: string;
  created: number;
  model: string;
}

/**
 * The model behind the gateway failed after the gateway accepted the request, answered as the
 * dialect answers that (Dialect.acceptedFailure): with the failure's status, or with 200 and the
 * error as the whole answer: the error body for a request that did not stream, and for one that
 * did, an event stream whose only event is the dialect's error frame (after its keep-alive
 * comment, and with `[DONE]` after it where the dialect sends one). The shapes are the relays'
 * own, not Airlock's reading of them: see dialects.ts for each.
 */
export function answerModelFailure(
  response: ServerResponse,
  fault: ModelFails,
  stream: boolean,
  voice: Voice,
  chunk: ChunkIdentity,
  sentKey: string | null,
): void {
  const fallback = defaultErrorForStatus(fault.status).error;
  const quoted = fault.quoteKey === true && sentKey !== null ? `: ${sentKey}` : '';
  const canonical = errorBody(`${fault.message ?? fallback.message}${quoted}`, fallback.type, fault.code ?? fallback.code);
  const mode = voice.dialect.acceptedFailure;
  if (mode === 'status' || (mode === 'ok200WhenStreaming' && !stream)) {
    sendGatewayError(response, voice, fault.status, canonical, { keepStatus: true });
    return;
  }
  const rendered = renderError(voice.dialect, canonical, { status: fault.status, requestId: voice.requestId });
  if (!stream) {
    response.writeHead(200, { 'content-type': rendered.contentType, 'content-length': Buffer.byteLength(rendered.text) });
    response.end(rendered.text);
    return;
  }
  const framing = framingFor(voice.dialect.stream, streamErrorData(voice, chunk, rendered.text));
  startEventStream(response);
  if (framing.comment !== null) response.write(framing.comment);
  response.end(framing.errorEvent + (framing.doneAfterError ? framing.event('[DONE]') : ''));
}

/** What a stream's error event carries in this dialect: its error body, or a chunk holding it with `finish_reason: "error"`. */
export function streamErrorData(voice: Voice, chunk: ChunkIdentity, renderedText: string): object {
  let error: object;
  try {
    error = JSON.parse(renderedText) as object;
  } catch {
    error = { error: { message: renderedText } };
  }
  if (voice.dialect.stream.errorFrame === 'errorBody') return error;
  return {
    id: chunk.id,
    object: 'chat.completion.chunk',
    created: chunk.created,
    model: chunk.model,
    ...error,
    choices: [{ index: 0, delta: { content: '' }, finish_reason: 'error' }],
  };
}
