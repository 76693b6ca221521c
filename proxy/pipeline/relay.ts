import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { Dispatcher } from 'undici';
import type { ErrorClass } from '../contracts/errors.ts';
import type { Profile } from '../contracts/profile.ts';
import { usageFromChatResponse } from '../billing/usage.ts';
import { classifyNetworkFailure } from '../core/errorClass.ts';
import { buildClientResponseHeaders } from '../core/headers.ts';
import type { ExchangePlan } from './plan.ts';
import { errorBodyFor, sendJson, streamErrorFrame } from './replies.ts';
import { createSseRelay, formatSseEvent, type StreamObserver } from './sseRelay.ts';
import { AnthropicStreamObserver, ChatStreamObserver, OpaqueStreamObserver, ResponsesStreamObserver, type StreamSink } from './streamObservers.ts';
import type { RequestTrace } from './trace.ts';

/** A translated non-stream answer is read whole to be rewritten; beyond this it is refused. */
const TRANSLATE_JSON_LIMIT_BYTES = 64 * 1024 * 1024;

export interface RelayInput {
  res: ServerResponse;
  plan: ExchangePlan;
  profile: Profile;
  trace: RequestTrace;
  response: Dispatcher.ResponseData;
  contentType: string | null;
  onStreamFailure: (errorClass: ErrorClass) => void;
}

async function writeWithBackpressure(res: ServerResponse, data: Buffer | string): Promise<void> {
  if (!res.write(data)) await once(res, 'drain');
}

function sinkFor(trace: RequestTrace): StreamSink {
  return {
    onDelta: (text) => trace.delta(text),
    onUsage: (usage) => trace.setUsage(usage),
    onModel: (model) => {
      trace.responseModel = model;
    },
  };
}

function observerFor(plan: ExchangePlan, sink: StreamSink): StreamObserver {
  if (plan.translator || plan.protocol === 'openai') {
    return plan.upstreamPath === 'chat/completions' || plan.translator ? new ChatStreamObserver(sink, plan.usageInjected) : new OpaqueStreamObserver();
  }
  return plan.protocol === 'anthropic' ? new AnthropicStreamObserver(sink) : new ResponsesStreamObserver(sink);
}

/** The upstream answered with success: pass it on as it arrives, translated where the plan says. */
export async function relayResponse(input: RelayInput): Promise<void> {
  const { res, plan, trace, response, contentType } = input;
  const isSse = contentType !== null && /text\/event-stream/i.test(contentType);
  const rewritten = isSse || plan.translator !== null;
  const headers = buildClientResponseHeaders(response.headers, { bodyRewritten: rewritten });
  trace.responseHeaders = flatten(headers);
  if (isSse) {
    res.writeHead(response.statusCode, { ...headers, 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
    res.flushHeaders();
    return relayStream(input);
  }
  if (plan.translator) return relayTranslatedJson(input, headers);
  res.writeHead(response.statusCode, headers);
  try {
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      trace.responseBody.add(chunk);
      await writeWithBackpressure(res, chunk);
    }
    res.end();
  } catch (error) {
    return failMidBody(input, error);
  }
  recordJsonAnswer(trace);
}

function recordJsonAnswer(trace: RequestTrace): void {
  if (trace.responseBody.truncated) return;
  const body = trace.responseBody.toBuffer();
  if (!body) return;
  try {
    const json = JSON.parse(body.toString('utf8')) as { model?: unknown };
    if (typeof json.model === 'string') trace.responseModel = json.model;
    const usage = usageFromChatResponse(json);
    if (usage) trace.setUsage(usage);
  } catch {
    // Not JSON (an embedding in another format, say): nothing to account from it.
  }
}

async function relayTranslatedJson(input: RelayInput, headers: Record<string, string | string[]>): Promise<void> {
  const { res, plan, trace, response } = input;
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > TRANSLATE_JSON_LIMIT_BYTES) throw new Error('the gateway answer is too large to translate');
      chunks.push(chunk);
      trace.responseBody.add(chunk);
    }
  } catch (error) {
    return failMidBody(input, error);
  }
  recordJsonAnswer(trace);
  let translated: object;
  try {
    translated = plan.translator!.translateJson(JSON.parse(Buffer.concat(chunks).toString('utf8')));
  } catch (error) {
    const upstreamMessage = `the gateway's answer could not be translated: ${(error as Error).message}`;
    trace.fail('upstream_error', upstreamMessage);
    sendJson(res, 502, errorBodyFor(plan.protocol, 502, 'upstream_error', { upstreamMessage }));
    return;
  }
  const payload = JSON.stringify(translated);
  res.writeHead(response.statusCode, { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) });
  res.end(payload);
}

async function relayStream(input: RelayInput): Promise<void> {
  const { res, plan, trace, response } = input;
  const observer = observerFor(plan, sinkFor(trace));
  const translator = plan.translator?.createStream() ?? null;
  const transform = translator
    ? (event: Parameters<StreamObserver['observe']>[0]): string => {
        observer.observe(event);
        if (event.data === '[DONE]') return '';
        try {
          return translator.push(JSON.parse(event.data) as object).join('');
        } catch {
          return '';
        }
      }
    : (event: Parameters<StreamObserver['observe']>[0]): string => (observer.observe(event) ? formatSseEvent(event) : '');
  let writeChain: Promise<void> = Promise.resolve();
  const relay = createSseRelay(transform, (frames) => {
    if (!res.write(frames)) writeChain = once(res, 'drain').then(() => undefined);
  });
  try {
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      trace.responseBody.add(chunk);
      relay.feed(chunk);
      await writeChain;
    }
  } catch (error) {
    return failMidStream(input, classifyStreamError(error, res), translator);
  }
  if (observer.upstreamErrorMessage !== null) {
    trace.fail('upstream_error', observer.upstreamErrorMessage);
    if (translator) res.write(translator.fail({ type: 'api_error', message: observer.upstreamErrorMessage }).join(''));
    res.end();
    return;
  }
  if (!observer.sawEndMarker) return failMidStream(input, 'stream_interrupted', translator);
  if (translator) res.write(translator.finish().join(''));
  res.end();
}

function classifyStreamError(error: unknown, res: ServerResponse): ErrorClass {
  // Our own abort reasons come back as the thrown value.
  if (res.destroyed || error === 'client_aborted') return 'client_aborted';
  if (error === 'timeout_total') return 'timeout_total';
  const errorClass = classifyNetworkFailure(error);
  return errorClass === 'network' ? 'stream_interrupted' : errorClass;
}

function failMidStream(input: RelayInput, errorClass: ErrorClass, translator: ReturnType<NonNullable<ExchangePlan['translator']>['createStream']> | null): void {
  const { res, plan, trace, profile } = input;
  if (errorClass === 'client_aborted') {
    trace.fail('client_aborted', 'the client closed the stream before it ended');
    return;
  }
  const timeoutMs = errorClass === 'timeout_idle' ? profile.timeouts.idleTimeoutMs : errorClass === 'timeout_total' ? profile.timeouts.totalTimeoutMs : undefined;
  const frame = translator
    ? translator.fail({ type: 'api_error', message: `the stream broke before it ended (${errorClass})` }).join('')
    : streamErrorFrame(plan.protocol, errorClass, timeoutMs !== undefined ? { timeoutMs } : {});
  trace.fail(errorClass, `the upstream stream ended without its end marker (${errorClass})`);
  input.onStreamFailure(errorClass);
  if (!res.destroyed) res.end(frame);
}

function failMidBody(input: RelayInput, error: unknown): void {
  const { res, trace } = input;
  const errorClass = classifyStreamError(error, res);
  trace.fail(errorClass, `the upstream answer broke off: ${(error as Error).message}`);
  // Headers are out: the only honest signal left for a non-stream body is to cut the connection.
  res.destroy();
}

function flatten(headers: Record<string, string | string[]>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  return flat;
}
