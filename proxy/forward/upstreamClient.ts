import type { IncomingHttpHeaders } from 'node:http';
import { Readable, type Transform } from 'node:stream';
import type { Dispatcher } from 'undici';
import { agentFor, type GatewayPlace, gatewayPlaceOf } from './upstreamAgents.ts';
import { tunnelFailure } from './proxyFailures.ts';
import { AttemptSocket } from './attemptSocket.ts';
import { COPY_SLICE_BYTES, inTurnSlices } from '../core/copyInSlices.ts';
import { networkFailureCode } from '../core/errorClass.ts';
import { isUnknownIssuerCode, osCaStoreTried, trustOsCaStore } from '../core/osCaStore.ts';
import { AnswerDecodingError, answerCodingOf, decoderFor } from './answerDecoding.ts';
import { answerText, readBody, UpstreamBody } from './upstreamBody.ts';
import type { ArrivingBody } from './arrivingBody.ts';

export interface UpstreamRequest {
  /** The whole URL as text: parsed once per distinct text (dispatchTarget). */
  url: string;
  method: string;
  headers: Record<string, string>;
  body: readonly Buffer[] | null;
  /** A body still arriving: sent as it comes, each attempt from its first byte (`body` is then only its start). */
  arriving?: ArrivingBody;
  signal: AbortSignal;
  connectTimeoutMs: number;
  idleTimeoutMs: number;
  /**
   * undici is writing the request on a connected socket: from here the gateway may run it. With a
   * body still arriving, only once it is whole: a gateway cannot run a request it has not all of.
   */
  onReachedSocket?: () => void;
  /** The gateway closed the reused connection, idle, as the request reached it: it did not run (upstreamExecution.ts closedWhileIdle). */
  onIdleClose?: () => void;
}

/**
 * A body up to COPY_SLICE_BYTES in several pieces (socket reads, a splice: every streamed chat body
 * once `include_usage` is in it) goes out as one copy, at most about 1 ms of memcpy. Sent as they
 * were, through a Readable made for the request, each piece was a write of its own (a syscall, and
 * a packet with TCP_NODELAY): streamed agent turns of 100-380 KB cost the forwarding thread 120-320
 * us more a request that way. Larger bodies are copied out a slice per turn of the event loop.
 */
export function dispatchBody(chunks: readonly Buffer[] | null): Dispatcher.DispatchOptions['body'] {
  if (!chunks || chunks.length === 0) return null;
  let byteLength = 0;
  for (const chunk of chunks) byteLength += chunk.length;
  if (byteLength > COPY_SLICE_BYTES) return Readable.from(inTurnSlices(chunks), { objectMode: false });
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, byteLength);
}

function bodyOf(request: UpstreamRequest): Dispatcher.DispatchOptions['body'] {
  const { arriving } = request;
  if (arriving === undefined) return dispatchBody(request.body);
  return arriving.complete ? dispatchBody(arriving.sentChunks()) : arriving.readable();
}

interface DispatchTarget {
  origin: string;
  path: string;
  place: GatewayPlace;
}

/** A profile sends to a few URLs, each many times: each is parsed once, not per request (about 1 us each). */
const targets = new Map<string, DispatchTarget>();
/** Queries vary (a passed-through GET's cursor, say): the cache starts afresh past this. */
const MAX_CACHED_TARGETS = 256;

/** Where undici sends a URL's request: its origin, and its path with the query, as `new URL` normalises them; and through what. */
export function dispatchTarget(url: string): DispatchTarget {
  let target = targets.get(url);
  if (target === undefined) {
    const parsed = new URL(url);
    target = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}`, place: gatewayPlaceOf(parsed) };
    if (targets.size >= MAX_CACHED_TARGETS) targets.clear();
    targets.set(url, target);
  }
  return target;
}

/** Dispatch options with the gateway's place, which picks the dispatcher (undici ignores the member). */
type PlacedOptions = Dispatcher.DispatchOptions & { place: GatewayPlace };

function dispatchOptions(request: UpstreamRequest): PlacedOptions {
  const { origin, path, place } = dispatchTarget(request.url);
  return {
    origin,
    path,
    place,
    method: request.method as Dispatcher.HttpMethod,
    headers: request.headers,
    body: bodyOf(request),
    headersTimeout: request.idleTimeoutMs,
    bodyTimeout: request.idleTimeoutMs,
  };
}

export interface UpstreamResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: UpstreamBody;
}

/**
 * For the relay: resolves at the answer's headers, then pushes the body to its one reader. An
 * abort of `signal` aborts the exchange at once (closing the upstream socket) with the signal's
 * reason as the error, before or after the headers.
 */
export function dispatchUpstream(request: UpstreamRequest): Promise<UpstreamResponse> {
  const { signal } = request;
  if (signal.aborted) return Promise.reject(signal.reason);
  let options: PlacedOptions;
  try {
    // Before the abort listener: a URL that does not parse must not leave one behind.
    options = dispatchOptions(request);
  } catch (error) {
    return Promise.reject(error);
  }
  return new Promise((resolve, reject) => dispatchAttempt(request, options, resolve, reject));
}

/**
 * One dispatch; a TLS handshake refused because Node's bundled CA list does not hold the gateway's
 * issuer is sent once more after the OS store is trusted (core/osCaStore.ts), when this attempt went
 * without it. The gateway never saw the first: the handshake failed before undici started the
 * request on a socket (onRequestStart), so no request was written and nothing can run twice.
 */
function dispatchAttempt(
  request: UpstreamRequest,
  options: PlacedOptions,
  resolve: (response: UpstreamResponse) => void,
  reject: (error: unknown) => void,
): void {
  const { signal } = request;
  const osStoreTriedBefore = osCaStoreTried();
  let controller: Dispatcher.DispatchController | null = null;
  let body: UpstreamBody | null = null;
  // Until undici hands over a controller (a connect may take a while) the abort waits for it.
  const onAbort = (): void => controller?.abort(signal.reason as Error);
  signal.addEventListener('abort', onAbort, { once: true });
  const settled = (): void => signal.removeEventListener('abort', onAbort);
  // Only for an answer compressed although Airlock asked for none (answerDecoding.ts).
  let decoder: Transform | null = null;
  let codedBytes = 0;
  let attemptFailed = false;
  const attemptSocket = request.onIdleClose === undefined ? null : new AttemptSocket();
  const { place } = options;
  agentFor(place, request.connectTimeoutMs).dispatch(options, {
    onRequestStart(started) {
      controller = started;
      if (signal.aborted) {
        started.abort(signal.reason as Error);
        return;
      }
      if (request.arriving === undefined || request.arriving.complete) request.onReachedSocket?.();
      else {
        request.arriving.whenComplete().then(() => {
          if (!attemptFailed && !signal.aborted) request.onReachedSocket?.();
        }, ignoreFailure);
      }
      // Last: undici publishes the request's socket as this returns, and nothing above may take the hand-over.
      attemptSocket?.expectSocket();
    },
    onResponseStart(started, statusCode, headers) {
      // undici hands on interim answers too (103 Early Hints from a CDN, 100 Continue): taken as
      // the answer, the real one's body went to a reader no one had, and the request never ended.
      if (isInterimStatus(statusCode)) return;
      const { coding, headers: passedHeaders } = answerCodingOf(headers);
      if (coding !== null) {
        try {
          decoder = decoderFor(coding);
        } catch (error) {
          started.abort(error as Error);
          return;
        }
      }
      const answer = new UpstreamBody(started);
      body = answer;
      if (decoder !== null) decodeInto(decoder, answer, coding as string);
      resolve({ statusCode, headers: passedHeaders, body });
    },
    onResponseData(_controller, chunk) {
      if (decoder === null) body?.push(chunk);
      else {
        codedBytes += chunk.length;
        decoder.write(chunk);
      }
    },
    onResponseEnd() {
      settled();
      attemptSocket?.answered();
      // No bytes has no coded form (a decoder fed nothing fails): a HEAD's answer, a 204 or a 304
      // carries its GET's Content-Encoding with no body (RFC 9110 sections 9.3.2, 15.3.5, 15.4.5).
      if (decoder !== null && codedBytes > 0) decoder.end();
      else {
        decoder?.destroy();
        body?.finish();
      }
    },
    onResponseError(_controller, error) {
      attemptFailed = true;
      attemptSocket?.ended();
      settled();
      decoder?.destroy();
      if (body !== null) body.fail(error);
      else if (controller === null && !osStoreTriedBefore && !signal.aborted && trustedOsStoreFor(options, error)) {
        dispatchAttempt(request, dispatchOptions(request), resolve, reject);
      } else {
        if (controller !== null && !signal.aborted && attemptSocket?.closedIdle(error) === true) request.onIdleClose?.();
        reject(controller === null ? tunnelFailure(error, request.connectTimeoutMs) : error);
      }
    },
  });
}

/** The attempt's own failure reports a body that never arrived whole. */
function ignoreFailure(): void {}

/** Whether `error` is a certificate of an unknown issuer, and the OS store is trusted now. */
function trustedOsStoreFor(options: Dispatcher.DispatchOptions, error: Error): boolean {
  const code = networkFailureCode(error);
  if (!isUnknownIssuerCode(code)) return false;
  return trustOsCaStore(
    `the gateway at ${options.origin} sent a TLS certificate whose issuer Node's bundled CA list does not hold (${code})`,
  );
}

/** A 1xx: RFC 9110 section 15.2 has a client read past any number of them to the final answer. */
function isInterimStatus(statusCode: number): boolean {
  return statusCode < 200;
}

/** The decoded chunks go to the answer as undici's would; a body that does not decode fails it. */
function decodeInto(decoder: Transform, answer: UpstreamBody, coding: string): void {
  decoder.on('data', (chunk: Buffer) => answer.push(chunk));
  decoder.once('end', () => answer.finish());
  decoder.once('error', (error) =>
    answer.fail(new AnswerDecodingError(`the gateway's ${coding}-compressed answer could not be decoded: ${error.message}`)),
  );
}

/** Past this a one-off answer fails: the longest model lists gateways give are a few MB. */
const ONE_OFF_ANSWER_MAX_BYTES = 32 * 1024 * 1024;

export interface UpstreamTextAnswer {
  statusCode: number;
  headers: IncomingHttpHeaders;
  bodyText: string;
}

/**
 * For one-off calls (the Test button, the model list, capability probes): the whole answer as text,
 * decoded as a forwarded answer is, so a gateway that compresses regardless does not fail them.
 */
export async function fetchUpstreamText(request: UpstreamRequest): Promise<UpstreamTextAnswer> {
  const { statusCode, headers, body } = await dispatchUpstream(request);
  const chunks = await readBody(body, { keepBytes: ONE_OFF_ANSWER_MAX_BYTES, maxBytes: ONE_OFF_ANSWER_MAX_BYTES });
  return { statusCode, headers, bodyText: answerText(Buffer.concat(chunks)) };
}
