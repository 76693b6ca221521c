/**
 * How a relayed answer fails once its status said success: a body that is not what the client
 * asked for (answered as any failed exchange), or one that broke off (the client's stream ends
 * with its protocol's error event; a body its client got nothing of yet is answered as a failed
 * exchange; one whose headers are out is cut).
 */
import type { ServerResponse } from 'node:http';
import type { ErrorClass, UpstreamErrorClass } from '../contracts/errors.ts';
import type { ClientProtocol } from '../contracts/usage.ts';
import { buildClientError, classifyNetworkFailure, networkFailureCode, type ExchangeFailureClass } from '../core/errorClass.ts';
import {
  ANSWER_ENDED_EARLY_CAUSE,
  CONTENT_LENGTH_MISMATCH_CODE,
  STREAM_ENDED_EARLY_CAUSE,
  STREAM_ENDED_EARLY_CODE,
} from '../core/errorExplanations.ts';
import type { ProtocolAdapter } from '../protocols/adapter.ts';
import { adapterNamed } from '../protocols/registry.ts';
import type { StreamEventTranslator } from '../protocols/streamTranslator.ts';
import { replyFailure } from './failureReply.ts';
import type { RelayInput } from './relay.ts';
import type { ErrorDetail } from './replies.ts';

const STOPPED_MESSAGE = 'Airlock was stopped while this stream was still running, so it was ended; retry once Airlock runs again';

/** The wrong-address class and status: a configuration to fix, which clients must not retry blindly. */
export function failNotJson(input: RelayInput, text: string): void {
  const { profile, response } = input;
  const upstreamMessage = input.keyMasker.maskText(`a ${response.statusCode} whose body is not JSON: ${text.slice(0, 200)}`);
  failAnswer(input, 'html_instead_of_json', { upstreamMessage, profileName: profile.name, baseUrl: profile.baseUrl });
}

/**
 * A JSON answer the gateway ended in order, cut short (cutShortJson.ts): no other site answering
 * but the gateway's answer broken off, which the model ran for. The client is told so, as for a
 * stream that ended early, and the row bills the estimate as for any answer that broke off. With
 * `x-should-retry: false`: each resend is billed again, and a relay that cuts every answer the
 * same way (a compressed Content-Length kept for the decompressed body) would have the SDK pay
 * three times (OpenAI's) or eleven (Claude Code's) for nothing; the fix leaves the resend to the user.
 */
export function failCutShort(input: RelayInput, bytes: number): void {
  const cause = cutShortCause(bytes);
  if (clientLeft(input, cause)) return;
  failAnswer(input, 'stream_interrupted', { errorCode: STREAM_ENDED_EARLY_CODE }, { refusesRetry: true, cause });
  input.trace.answerBrokeOff();
}

/**
 * A JSON answer passed through as it arrived (embeddings, files), cut short so: its headers are out,
 * so its client is told by the connection breaking off, never a clean end its SDK would parse as an
 * answer (it was given no length to read the end by: relayResponse). The row bills it as any answer that broke off.
 */
export function failPassedCutShort(input: RelayInput, bytes: number): void {
  const cause = cutShortCause(bytes);
  if (clientLeft(input, cause)) return;
  input.trace.failed('stream_interrupted', cause, undefined, STREAM_ENDED_EARLY_CODE);
  input.trace.answerBrokeOff();
  input.res.destroy();
}

function cutShortCause(bytes: number): string {
  return `${ANSWER_ENDED_EARLY_CAUSE} after ${bytes} bytes, its JSON cut short`;
}

/** A client that left is recorded as having left, as on every other path (failMidBody, failEndedEarly). */
function clientLeft(input: RelayInput, cause: string): boolean {
  if (!input.res.destroyed) return false;
  input.trace.failed('client_aborted', cause);
  return true;
}

/**
 * No body at all (an empty 200, a 204) is not another site answering, as a body that is not JSON
 * is: the address is the gateway's, and the gateway gave nothing where the answer was due.
 */
export function failEmpty(input: RelayInput): void {
  const upstreamMessage = `a ${input.response.statusCode} with an empty body where the answer was due`;
  failAnswer(input, 'upstream_error', { upstreamMessage });
}

/**
 * A success status whose answer is a failure after all: answered as any failed exchange is (failureReply.ts).
 * `cause`: what the row keeps as happened, where the client's error is not it.
 */
export function failAnswer(
  input: RelayInput,
  errorClass: UpstreamErrorClass,
  detail: ErrorDetail,
  options: { refusesRetry?: boolean; cause?: string } = {},
): void {
  const { res, trace, plan } = input;
  if (res.headersSent) {
    // An event stream already open (one JSON answer under its label) ends with its protocol's error event.
    const failed = { ...detail, knownSecrets: [...input.knownSecrets] };
    trace.failed(errorClass, options.cause ?? buildClientError(errorClass, failed).error.message, undefined, detail.errorCode);
    if (!res.destroyed) res.end(adapterNamed(plan.protocol).errors.streamFrame(errorClass, failed));
    return;
  }
  const failure = { errorClass, upstreamStatus: null, detail, upstreamRequestId: input.upstreamRequestId, ...options };
  replyFailure(res, trace, plan.protocol, failure, input.knownSecrets);
}

export function classifyStreamError(error: unknown, res: ServerResponse): ExchangeFailureClass | 'client_aborted' {
  // Our own abort reasons come back as the thrown value.
  if (res.destroyed || error === 'client_aborted') return 'client_aborted';
  if (error === 'timeout_total' || error === 'proxy_stopping') return error;
  // After the head, undici's length mismatch is a body cut short: a gateway that closes each connection
  // after its answer has its close or reset mid-body reported so. Before the head it is invalid HTTP.
  if (networkFailureCode(error) === CONTENT_LENGTH_MISMATCH_CODE) return 'stream_interrupted';
  const errorClass = classifyNetworkFailure(error);
  // The connection was open and answering: its ETIMEDOUT is no connect timeout but TCP keep-alive
  // finding it dead (a laptop that slept, a network that went), and the client was told to raise
  // connectTimeoutMs mid-answer.
  return errorClass === 'network' || errorClass === 'timeout_connect' ? 'stream_interrupted' : errorClass;
}

/** `clientCode`: a code that explains the failure better than its class (errorExplanations.ts), in the client's error. */
export function failMidStream(
  input: RelayInput,
  client: ProtocolAdapter,
  errorClass: ErrorClass,
  translator: StreamEventTranslator | null,
  cause?: string,
  clientCode?: string,
): void {
  const { res, trace, profile } = input;
  if (errorClass === 'client_aborted') {
    trace.failed('client_aborted', 'the client closed the stream before it ended');
    return;
  }
  const timeoutMs = timeoutOf(profile, errorClass);
  const stopped = errorClass === 'proxy_stopping';
  const detail = { ...(timeoutMs !== undefined ? { timeoutMs } : {}), ...(clientCode !== undefined ? { errorCode: clientCode } : {}) };
  // The failure in the client protocol's own words (Anthropic's error type, the Responses code),
  // with the cause and fix a native client gets in its own frame.
  const clientMessage = stopped ? STOPPED_MESSAGE : buildClientError(errorClass, detail).error.message;
  const responseTranslator = input.plan.translator;
  const frame =
    translator && responseTranslator
      ? translator.fail(responseTranslator.streamFailure(errorClass, null, detail, clientMessage)).join('')
      : client.errors.streamFrame(errorClass, detail);
  const message = stopped ? STOPPED_MESSAGE : (cause ?? `the upstream stream ended before its answer was whole (${errorClass})`);
  trace.failed(errorClass, message, undefined, clientCode);
  input.onStreamFailure(errorClass);
  if (!res.destroyed) res.end(frame);
}

/**
 * An answer that broke off mid-body. Its client got nothing yet (a protocol's JSON answer is read
 * whole before its headers go out, and a passed body labelled JSON waits for its first byte): it
 * gets the failure in its protocol, as any failed exchange, rather than a cut connection its SDK
 * can only call a connection error. Once headers are out, cutting the connection is the only
 * honest signal left for a body that is not a stream.
 * With `x-should-retry: false` (unless clientResendsDirectly), as a JSON answer cut short gets
 * (failCutShort): the gateway's status came, so it ran the request and bills it
 * (docs/gateway-spec.md §7 rule 3), and straight against it the SDKs read the body after their retry
 * loop, so never resend it. Held for the whole body here, the 502 had the OpenAI SDK send it three
 * times and Claude Code up to eleven (brokenJsonAnswers.test.ts, brokenWholeAnswers.test.ts).
 */
export function failMidBody(input: RelayInput, error: unknown): void {
  const { res, trace } = input;
  const errorClass = classifyStreamError(error, res);
  const cause = `the upstream answer broke off: ${breakCause(error, errorClass, input.profile)}`;
  if (errorClass === 'client_aborted' || res.headersSent) {
    trace.failed(errorClass, cause);
    res.destroy();
    return;
  }
  const timeoutMs = timeoutOf(input.profile, errorClass);
  // The row keeps what happened; the client's answer has the cause and the fix.
  const failure = {
    errorClass,
    upstreamStatus: null,
    detail: timeoutMs === undefined ? {} : { timeoutMs },
    upstreamRequestId: input.upstreamRequestId,
    refusesRetry: !clientResendsDirectly(error, errorClass, input.plan.protocol),
    cause,
  };
  replyFailure(res, trace, input.plan.protocol, failure, input.knownSecrets);
  trace.answerBrokeOff();
}

/**
 * Whether the client resends a whole answer broken off this way straight against the gateway, so
 * Airlock leaves it the choice: a reset where the protocol's clients resend one (its adapter's
 * `resetAnswerResent`: Claude Code does, the OpenAI SDK does not), and Airlock's own timeouts, which
 * stand for the client's. A close before the declared length, bytes that do not decode and broken
 * framing are errors of the body no client resends.
 */
function clientResendsDirectly(error: unknown, errorClass: ErrorClass, protocol: ClientProtocol): boolean {
  if (errorClass === 'timeout_idle' || errorClass === 'timeout_total') return true;
  return networkFailureCode(error) === 'ECONNRESET' && adapterNamed(protocol).errors.resetAnswerResent;
}

/**
 * A stream answering a request for a whole answer that the gateway ended, without an error, before
 * its answer was whole: the client gets the failure as a whole answer would, with the early end's
 * own cause and fix (a broken one's, raise idleTimeoutMs, would send it to the wrong setting).
 */
export function failEndedEarly(input: RelayInput, what: string): void {
  const { res, trace } = input;
  const cause = `${STREAM_ENDED_EARLY_CAUSE} ${what}`;
  if (clientLeft(input, cause)) return;
  if (res.headersSent) {
    trace.failed('stream_interrupted', cause, undefined, STREAM_ENDED_EARLY_CODE);
    res.destroy();
    return;
  }
  const detail = { errorCode: STREAM_ENDED_EARLY_CODE };
  const failure = {
    errorClass: 'stream_interrupted' as const,
    upstreamStatus: null,
    detail,
    upstreamRequestId: input.upstreamRequestId,
    cause,
  };
  replyFailure(res, trace, input.plan.protocol, failure, input.knownSecrets);
  trace.answerBrokeOff();
}

/** What broke an answer: the limit of Airlock's that ran out, the socket's own words, or Airlock's own reason for ending it. */
export function breakCause(error: unknown, errorClass: ErrorClass, profile: RelayInput['profile']): string {
  if (errorClass === 'timeout_idle') return `nothing came from the gateway for idleTimeoutMs = ${profile.timeouts.idleTimeoutMs} ms`;
  if (errorClass === 'timeout_total') return `the request ran for totalTimeoutMs = ${profile.timeouts.totalTimeoutMs} ms`;
  return error instanceof Error ? error.message : `Airlock ended it (${String(error)})`;
}

function timeoutOf(profile: RelayInput['profile'], errorClass: ErrorClass): number | undefined {
  if (errorClass === 'timeout_idle') return profile.timeouts.idleTimeoutMs;
  return errorClass === 'timeout_total' ? profile.timeouts.totalTimeoutMs : undefined;
}
