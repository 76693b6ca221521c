import type { ProtocolStream } from '../protocols/adapter.ts';
import { declaredErrorClass } from '../protocols/declaredError.ts';
import type { SseEvent } from '../protocols/sse.ts';
import { createSseRelay } from '../protocols/sseRelay.ts';
import { declaredErrorDetail, type RelayProtocols } from './answerRecords.ts';
import type { RelayInput } from './relay.ts';
import { failAnswer, failEndedEarly, failMidBody } from './relayFailures.ts';
import { ANSWER_WAS_WHOLE, END_GRACE_MS, sinkFor, streamKeyGuards } from './streamRelay.ts';
import { firstByteOf, holdsWholeJsonAnswer, jsonUnderStreamLabel, OPEN_BRACE, readBody } from './upstreamBody.ts';

/** Read whole, as a JSON answer is; beyond this the answer is refused. */
const STREAM_READ_LIMIT_BYTES = 64 * 1024 * 1024;

/** The events are read only to learn when the answer is whole: nothing is written anywhere. */
const NO_CLIENT = (): void => undefined;

/**
 * A request for a whole answer that the gateway answered with an event stream, as servers that
 * stream regardless do (chat: kaito-project/kaito#1880, unslothai/unsloth#6570,
 * diegosouzapw/OmniRoute#10239; Responses: the ChatGPT backend Codex uses, farion1231/cc-switch#2216):
 * the SDKs read a whole answer with JSON.parse and failed on the events. It is read to its end and
 * put together by its protocol into the answer the client asked for, judged whole and failed as a
 * stream is. Returns that answer's JSON, or null once the client got the failure.
 */
export async function readStreamAsAnswer(
  input: RelayInput,
  protocols: RelayProtocols,
  wholeAnswer: NonNullable<ProtocolStream['wholeAnswer']>,
): Promise<Buffer | null> {
  const { trace } = input;
  const reader = streamAnswerReader(input, protocols, wholeAnswer);
  let graceTimer: NodeJS.Timeout | null = null;
  try {
    await readBody(input.response.body, {
      keepBytes: 0,
      maxBytes: STREAM_READ_LIMIT_BYTES,
      onChunk: (chunk) => {
        trace.answerBytes(chunk, input.keyMasker);
        reader.feed(chunk);
        if (graceTimer === null && reader.complete) {
          graceTimer = setTimeout(() => input.response.body.abort(ANSWER_WAS_WHOLE), END_GRACE_MS);
        }
      },
    });
  } catch (error) {
    // Once the answer is whole, whatever ends the body (the grace, a reset) failed nothing, as for a stream.
    if (graceTimer === null) {
      failMidBody(input, error);
      return null;
    }
  } finally {
    if (graceTimer !== null) clearTimeout(graceTimer);
  }
  return reader.answer();
}

/**
 * An event stream under a JSON label (microsoft/foundry-dev-tools#195: a proxy answered `stream: true`
 * with `application/json`), read whole as a JSON answer is: put together as a stream read as an answer
 * is, for a client that asked for a stream or not. Read as JSON, it was the wrong address answering,
 * and the answer the model wrote was billed nothing. Returns that answer's JSON, or null once the client got the failure.
 */
export function answerOfEvents(
  input: RelayInput,
  protocols: RelayProtocols,
  wholeAnswer: NonNullable<ProtocolStream['wholeAnswer']>,
  bytes: Buffer,
): Buffer | null {
  const reader = streamAnswerReader(input, protocols, wholeAnswer);
  reader.feed(bytes);
  return reader.answer();
}

/** A stream's bytes, fed as they come, read into the one answer they amount to. */
interface StreamAnswerReader {
  feed(chunk: Buffer): void;
  /** The answer is whole (its protocol's end came, or the one JSON answer under the label parsed): a gateway may keep its body open after it. */
  readonly complete: boolean;
  /** Once the bytes ended: the answer's JSON, or null once the client got the failure. */
  answer(): Buffer | null;
}

function streamAnswerReader(
  input: RelayInput,
  protocols: RelayProtocols,
  wholeAnswer: NonNullable<ProtocolStream['wholeAnswer']>,
): StreamAnswerReader {
  const { trace, plan } = input;
  const options = { dropUsageOnlyChunks: false, usageAsked: plan.usageAsked };
  // Read as it comes too, to know when it is whole (a gateway may keep the body open after that: streamRelay.ts),
  // and to give the trace its text and usage as a relayed stream does: without usage, the output is estimated from that text.
  // Its end is the stream's end, not the answer's: a gateway sends usage after the last finish_reason, asked or not,
  // and the grace must not cut it off (the answer is judged whole with the request's own options below).
  const observer = protocols.upstream.adapter.stream.observer(sinkFor(trace), { ...options, usageAsked: true });
  // The same events, parsed once, put together into the answer.
  const assembler = wholeAnswer(options);
  // What the trace, the answer and the log get is masked as a relayed stream's is: across deltas, escaped, and in any field.
  const { guard, textGuard, maskLogCopy } = streamKeyGuards(input, protocols);
  const read = (event: SseEvent): void => {
    observer.observe(event);
    assembler.add(event);
  };
  const events = createSseRelay(
    (event) => {
      guard.relay(event, read);
      return '';
    },
    NO_CLIENT,
    textGuard,
  );
  // A body that starts as a JSON object is one answer under the label: only then are its bytes kept.
  let firstByte: number | undefined;
  let bodyStarted = false;
  const jsonChunks: Buffer[] = [];
  let jsonWhole = false;
  return {
    feed(chunk) {
      firstByte ??= firstByteOf(chunk, !bodyStarted);
      bodyStarted = true;
      if (firstByte === OPEN_BRACE) {
        jsonChunks.push(chunk);
        jsonWhole ||= holdsWholeJsonAnswer(jsonChunks);
      }
      events.feed(chunk);
    },
    get complete() {
      return observer.complete || jsonWhole;
    },
    answer() {
      if (firstByte === OPEN_BRACE) return Buffer.from(jsonUnderStreamLabel(Buffer.concat(jsonChunks)));
      const streamed = assembler.result();
      if (streamed.error !== null) {
        failAnswer(input, declaredErrorClass(streamed.error), declaredErrorDetail(input, streamed.error));
        trace.gatewayDeclaredFailure();
        return null;
      }
      if (!streamed.whole || !streamed.answered) {
        failEndedEarly(input, streamed.answered ? 'before its answer was whole' : 'with no answer in it');
        return null;
      }
      // The log's copy of the events is masked as a relayed stream's is: a key JSON-escaped in any field (one the answer
      // leaves out too), and one the deltas spell out across events, which only the answer put together shows.
      maskLogCopy();
      return Buffer.from(JSON.stringify(streamed.answer));
    },
  };
}
