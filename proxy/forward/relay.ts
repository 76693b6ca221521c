import type { ServerResponse } from 'node:http';
import type { EventSourceMessage } from 'eventsource-parser';
import type { ErrorClass } from '../contracts/errors.ts';
import type { Profile } from '../contracts/profile.ts';
import { usageFromChatResponse } from '../protocols/chat/usage.ts';
import { classifyNetworkFailure } from '../core/errorClass.ts';
import { buildClientResponseHeaders } from './headers.ts';
import type { KeyMasker } from '../core/keyMasker.ts';
import type { ExchangePlan } from './plan.ts';
import { errorBodyFor, sendJson, streamErrorFrame } from '../protocols/replies.ts';
import { createSseRelay, formatSseEvent, type StreamObserver, type TextGuard } from '../protocols/sseRelay.ts';
import { createStreamKeyGuard, maskedEventsText, type StreamDialect, type StreamKeyGuard } from './streamKeyGuard.ts';
import {
  AnthropicStreamObserver,
  ChatStreamObserver,
  OpaqueStreamObserver,
  ResponsesStreamObserver,
  type StreamSink,
} from '../protocols/streamObservers.ts';
import type { RequestTrace } from './trace.ts';
import { readBody, relayBody } from './upstreamBody.ts';
import type { UpstreamResponse } from './upstreamClient.ts';

const STOPPED_MESSAGE = 'Airlock was stopped while this stream was still running, so it was ended; retry once Airlock runs again';
/** A translated non-stream answer is read whole to be rewritten; beyond this it is refused. */
const TRANSLATE_JSON_LIMIT_BYTES = 64 * 1024 * 1024;

export interface RelayInput {
  res: ServerResponse;
  plan: ExchangePlan;
  profile: Profile;
  trace: RequestTrace;
  response: UpstreamResponse;
  contentType: string | null;
  /** The answer is read to its end even if the client leaves (a keyed creation: a repeat gets it). */
  readsOnWithoutClient?: boolean;
  onStreamFailure: (errorClass: ErrorClass) => void;
  /** The key this request was sent with: a client never receives it, whatever the gateway echoes. */
  keyMasker: KeyMasker;
}

function sinkFor(trace: RequestTrace): StreamSink {
  return {
    onDelta: (text) => trace.delta(text),
    onUsage: (usage) => trace.setUsage(usage),
    onModel: (model) => {
      trace.modelAnswered(model);
    },
  };
}

/** The upstream's protocol, which decides the fields a client assembles across events. */
function dialectOf(plan: ExchangePlan): StreamDialect {
  if (plan.translator || plan.protocol === 'openai') return 'chat';
  return plan.protocol === 'anthropic' ? 'anthropic' : 'responses';
}

function observerFor(plan: ExchangePlan, sink: StreamSink): StreamObserver {
  if (plan.translator || plan.protocol === 'openai') {
    return plan.upstreamPath === 'chat/completions' || plan.translator
      ? new ChatStreamObserver(sink, plan.usageInjected)
      : new OpaqueStreamObserver();
  }
  return plan.protocol === 'anthropic' ? new AnthropicStreamObserver(sink) : new ResponsesStreamObserver(sink);
}

/** The upstream answered with success: pass it on as it arrives, translated where the plan says. */
export async function relayResponse(input: RelayInput): Promise<void> {
  const { res, plan, trace, response, contentType } = input;
  const isSse = contentType?.toLowerCase().includes('text/event-stream') ?? false;
  const rewritten = isSse || plan.translator !== null;
  const headers = buildClientResponseHeaders(response.headers, { bodyRewritten: rewritten });
  input.keyMasker.maskHeaderValues(headers);
  trace.responseHeadersSent(flatten(headers));
  if (isSse) {
    res.writeHead(response.statusCode, {
      ...headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no',
    });
    res.flushHeaders();
    return relayStream(input);
  }
  if (plan.translator) return relayTranslatedJson(input, headers);
  res.writeHead(response.statusCode, headers);
  // The Content-Length is already out: the key becomes a mask of its own length.
  const keyFree = input.keyMasker.byteStream();
  try {
    await relayBody(
      response.body,
      res,
      (chunk) => {
        trace.responseBody.add(chunk);
        const passed = keyFree.push(chunk);
        // A client that is gone has nothing to wait for: the answer is only read on.
        return res.destroyed || passed.length === 0 || res.write(passed);
      },
      { readOnWithoutClient: input.readsOnWithoutClient === true },
    );
    res.end(keyFree.end());
  } catch (error) {
    return failMidBody(input, error);
  }
  recordJsonAnswer(trace, contentType);
}

/** Usage and model of a JSON answer. Bodies labelled as something else (audio, files) are not decoded at all. */
function recordJsonAnswer(trace: RequestTrace, contentType: string | null): void {
  if (trace.responseBody.truncated) return;
  if (contentType !== null && !contentType.toLowerCase().includes('json')) return;
  const body = trace.responseBody.toBuffer();
  if (!body) return;
  try {
    recordAnswerFields(trace, JSON.parse(body.toString('utf8')) as object);
  } catch {
    // Not JSON (an embedding in another format, say): nothing to account from it.
  }
}

function recordAnswerFields(trace: RequestTrace, json: object): void {
  const model = (json as { model?: unknown }).model;
  if (typeof model === 'string') trace.modelAnswered(model);
  const usage = usageFromChatResponse(json);
  if (usage) trace.setUsage(usage);
}

async function relayTranslatedJson(input: RelayInput, headers: Record<string, string | string[]>): Promise<void> {
  const { res, plan, trace, response } = input;
  let chunks: Buffer[];
  try {
    chunks = await readBody(response.body, {
      keepBytes: TRANSLATE_JSON_LIMIT_BYTES,
      maxBytes: TRANSLATE_JSON_LIMIT_BYTES,
      onChunk: (chunk) => trace.responseBody.add(chunk),
    });
  } catch (error) {
    return failMidBody(input, error);
  }
  let translated: object;
  try {
    // Parsed once: the same value gives the usage and the translation.
    const answer = JSON.parse(Buffer.concat(chunks).toString('utf8')) as object;
    if (typeof answer === 'object' && answer !== null) recordAnswerFields(trace, answer);
    translated = plan.translator!.translateJson(answer);
  } catch (error) {
    const upstreamMessage = `the gateway's answer could not be translated: ${(error as Error).message}`;
    trace.failed('upstream_error', upstreamMessage);
    sendJson(res, 502, errorBodyFor(plan.protocol, 502, 'upstream_error', { upstreamMessage }));
    return;
  }
  const payload = input.keyMasker.maskText(JSON.stringify(translated));
  res.writeHead(response.statusCode, {
    ...headers,
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(payload)),
  });
  res.end(payload);
}

async function relayStream(input: RelayInput): Promise<void> {
  const { plan, trace, keyMasker } = input;
  const dialect = dialectOf(plan);
  const guard = createStreamKeyGuard(keyMasker, dialect);
  const textGuard = keyMasker.chunkStream();
  try {
    await relayGuardedStream(input, guard, textGuard);
  } finally {
    // The raw events kept for the log would still spell out a key the client never saw: masked
    // when something was, and when the stream ended (cut, or its client gone) while text was held back.
    const mayHoldKey = guard.masked || textGuard.masked || guard.holding || textGuard.holding;
    const raw = mayHoldKey ? trace.responseBody.toBuffer() : null;
    if (raw !== null) trace.responseBody.replaceText(maskedEventsText(raw, keyMasker, dialect));
  }
}

async function relayGuardedStream(input: RelayInput, guard: StreamKeyGuard, textGuard: TextGuard): Promise<void> {
  const { res, plan, trace, response } = input;
  const observer = observerFor(plan, sinkFor(trace));
  const translator = plan.translator?.createStream() ?? null;
  const render = translator
    ? (event: EventSourceMessage): string => {
        observer.observe(event);
        if (event.data === '[DONE]') return '';
        try {
          return translator.push(JSON.parse(event.data) as object).join('');
        } catch {
          return '';
        }
      }
    : (event: EventSourceMessage): string => (observer.observe(event) ? formatSseEvent(event) : '');
  // One upstream event may come out as several (text held back before it, handed on now).
  let rendered = '';
  const renderOne = (event: EventSourceMessage): void => {
    rendered += render(event);
  };
  const transform = (event: EventSourceMessage): string => {
    rendered = '';
    guard.relay(event, renderOne);
    return rendered;
  };
  let clientHasRoom = true;
  const relay = createSseRelay(
    transform,
    (frames) => {
      // A client that is gone has nothing to wait for: a keyed creation's answer is only read on.
      clientHasRoom = res.destroyed || res.write(frames);
    },
    textGuard,
  );
  try {
    await relayBody(
      response.body,
      res,
      (chunk) => {
        trace.responseBody.add(chunk);
        clientHasRoom = true;
        relay.feed(chunk);
        return clientHasRoom;
      },
      { readOnWithoutClient: input.readsOnWithoutClient === true },
    );
  } catch (error) {
    return failMidStream(input, classifyStreamError(error, res), translator);
  }
  if (observer.upstreamErrorMessage !== null) {
    trace.failed('upstream_error', observer.upstreamErrorMessage);
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
  if (error === 'timeout_total' || error === 'proxy_stopping') return error;
  const errorClass = classifyNetworkFailure(error);
  return errorClass === 'network' ? 'stream_interrupted' : errorClass;
}

function failMidStream(
  input: RelayInput,
  errorClass: ErrorClass,
  translator: ReturnType<NonNullable<ExchangePlan['translator']>['createStream']> | null,
): void {
  const { res, plan, trace, profile } = input;
  if (errorClass === 'client_aborted') {
    trace.failed('client_aborted', 'the client closed the stream before it ended');
    return;
  }
  const timeoutMs =
    errorClass === 'timeout_idle'
      ? profile.timeouts.idleTimeoutMs
      : errorClass === 'timeout_total'
        ? profile.timeouts.totalTimeoutMs
        : undefined;
  const stopped = errorClass === 'proxy_stopping';
  const frame = translator
    ? translator
        .fail({ type: 'api_error', message: stopped ? STOPPED_MESSAGE : `the stream broke before it ended (${errorClass})` })
        .join('')
    : streamErrorFrame(plan.protocol, errorClass, timeoutMs !== undefined ? { timeoutMs } : {});
  trace.failed(errorClass, stopped ? STOPPED_MESSAGE : `the upstream stream ended without its end marker (${errorClass})`);
  input.onStreamFailure(errorClass);
  if (!res.destroyed) res.end(frame);
}

function failMidBody(input: RelayInput, error: unknown): void {
  const { res, trace } = input;
  const errorClass = classifyStreamError(error, res);
  trace.failed(errorClass, `the upstream answer broke off: ${(error as Error).message}`);
  // Headers are out: the only honest signal left for a non-stream body is to cut the connection.
  res.destroy();
}

function flatten(headers: Record<string, string | string[]>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  return flat;
}
