import type { TokenUsage } from '../contracts/usage.ts';
import type { ObserverOptions, StreamSink } from '../protocols/adapter.ts';
import { STREAM_ENDED_EARLY_CAUSE, STREAM_ENDED_EARLY_CODE } from '../core/errorExplanations.ts';
import { declaredErrorClass, declaredErrorExplained, declaredErrorSaid } from '../protocols/declaredError.ts';
import { formatSseEvent, type SseEvent } from '../protocols/sse.ts';
import { createSseRelay, type TextGuard } from '../protocols/sseRelay.ts';
import { guardingEscapedKey, maskedEventsText, type StreamKeyGuard } from '../protocols/streamKeyGuard.ts';
import type { StreamEventTranslator } from '../protocols/streamTranslator.ts';
import { answerUsageForClient } from './accounting.ts';
import { declaredErrorDetail, recordDeclaredError, type RelayProtocols } from './answerRecords.ts';
import type { ExchangePlan } from './plan.ts';
import type { RelayInput } from './relay.ts';
import { breakCause, classifyStreamError, failMidStream } from './relayFailures.ts';
import type { RequestTrace } from './trace.ts';
import { firstByteOf, holdsWholeJsonAnswer, OPEN_BRACE, relayBody } from './upstreamBody.ts';

/**
 * How long a gateway has to end its body once the answer in it is whole (its protocol's end came).
 * Relays keep a stream open after `[DONE]` (earendil-works/pi#7954), and the OpenAI and Anthropic
 * SDKs read on to the body's end: the client waited for the idle timeout and then got an error
 * after a whole answer. Within this a gateway that ends its body keeps its connection for the
 * next request; past it, the client's stream ends and the gateway's connection is closed.
 */
export const END_GRACE_MS = 500;

/**
 * The grace's abort reason: the answer was whole, nothing failed. A string, as Airlock's other abort reasons
 * are: no stack trace made per request, and nothing anyone adds to it reaches another request.
 */
export const ANSWER_WAS_WHOLE = 'the gateway kept its stream open after the answer was whole';

/**
 * The trace as the protocol observers see it: the few things they report. A class: seven closures a
 * stream were 0.4 KB of each open stream's heap for its whole life.
 */
class TraceSink implements StreamSink {
  readonly #trace: RequestTrace;

  constructor(trace: RequestTrace) {
    this.#trace = trace;
  }

  onDelta(text: string): void {
    this.#trace.delta(text);
  }

  /** What else the model wrote only a usage estimate reads. */
  onOtherOutput(text: string): void {
    this.#trace.otherOutput(text);
  }

  onOpaqueOutput(bytes: number): void {
    this.#trace.opaqueOutput(bytes);
  }

  onThinking(blockIndex: number, text: string): void {
    this.#trace.thinkingOutput(blockIndex, text);
  }

  onThinkingSignature(blockIndex: number, signatureBytes: number): void {
    this.#trace.thinkingSignature(blockIndex, signatureBytes);
  }

  onUsage(usage: TokenUsage): void {
    this.#trace.setUsage(usage);
  }

  onModel(model: string): void {
    this.#trace.modelAnswered(model);
  }
}

export function sinkFor(trace: RequestTrace): StreamSink {
  return new TraceSink(trace);
}

function observerOptions(plan: ExchangePlan): ObserverOptions {
  return { dropUsageOnlyChunks: plan.usageInjected, usageAsked: plan.usageAsked };
}

/**
 * The key guards a stream's events pass through (the protocol's, across deltas and JSON-escaped,
 * and the raw text's), and the masking of the log's copy of the raw events once they ended: they
 * would still spell out a key the client never saw, where something was masked, or where the
 * stream ended (cut, or its client gone) while text was held back.
 */
export function streamKeyGuards(
  input: RelayInput,
  protocols: RelayProtocols,
): { guard: StreamKeyGuard; textGuard: TextGuard; maskLogCopy(): void } {
  const { trace, keyMasker } = input;
  const keyGuard = (): StreamKeyGuard => guardingEscapedKey(protocols.upstream.adapter.stream.keyGuard(keyMasker), keyMasker);
  const guard = keyGuard();
  const textGuard = keyMasker.chunkStream();
  return {
    guard,
    textGuard,
    maskLogCopy() {
      const mayHoldKey = guard.masked || textGuard.masked || guard.holding || textGuard.holding;
      const raw = mayHoldKey ? trace.responseBody.toBuffer() : null;
      if (raw !== null) trace.answerBytesMasked(maskedEventsText(raw, keyMasker, keyGuard()));
    },
  };
}

/** Held whole, as a JSON answer is read; beyond this the answer is cut. */
const WHOLE_JSON_LIMIT_BYTES = 64 * 1024 * 1024;

/**
 * Relays an event stream event by event, key masked, translated where the plan says. A body that
 * starts as a JSON object is one whole answer under the label (wholeFromStream.ts): read as events it
 * held none, and the client got an empty stream. It is held to its end and given to `answerWholeJson`,
 * which sends it as the events the client asked for.
 */
export async function relayStream(
  input: RelayInput,
  protocols: RelayProtocols,
  answerWholeJson: (bytes: Buffer) => void | Promise<void>,
): Promise<void> {
  const { guard, textGuard, maskLogCopy } = streamKeyGuards(input, protocols);
  // One async function, not a wrapper around another: a suspended one is held by each open stream.
  try {
    const { res, plan, trace, response } = input;
    const observer = protocols.upstream.adapter.stream.observer(sinkFor(trace), observerOptions(plan));
    const responseTranslator = plan.translator;
    const translator = responseTranslator?.createStream() ?? null;
    const render =
      responseTranslator && translator
        ? (event: SseEvent): string => {
            observer.observe(event);
            const declared = observer.upstreamError;
            if (declared === null) return translator.push(event).join('');
            // The client's error event says what the gateway's did (an overload, a rate limit), as a whole answer would.
            const errorClass = declaredErrorClass(declared);
            const message = declaredErrorExplained(errorClass, declared, input.knownSecrets);
            const said = declaredErrorSaid(declared);
            return translator.fail(responseTranslator.streamFailure(errorClass, declared.status, said, message)).join('');
          }
        : (event: SseEvent): string => (observer.observe(event) ? formatSseEvent(event) : '');
    // One upstream event may come out as several (text held back before it, handed on now).
    let rendered = '';
    const renderOne = (event: SseEvent): void => {
      rendered += render(event);
    };
    const transform = (event: SseEvent): string => {
      rendered = '';
      // After a translated client's end the gateway's later events are only counted, for the log's event times.
      if (clientEnded) return rendered;
      guard.relay(event, renderOne);
      return rendered;
    };
    let clientHasRoom = true;
    // Set once the answer is whole: the gateway's body then has END_GRACE_MS to end.
    let graceTimer: NodeJS.Timeout | null = null;
    // A translated client gets its end once the answer is whole and its usage settled: nothing after it is translated.
    let clientEnded = false;
    let clientEnding: Promise<void> | null = null;
    const endWhole = (): Promise<void> => {
      if (res.destroyed) return Promise.resolve();
      clientEnded = true;
      clientEnding ??= endTranslatedClient(input, translator);
      return clientEnding;
    };
    // A client still taking in what it was sent holds the gateway's later bytes back, not the gateway: once it has
    // drained, the gateway has its grace again for what it still sends.
    const graceAgain = (): void => {
      graceTimer = setTimeout(endLingering, END_GRACE_MS);
    };
    const endLingering = (): void => {
      if (res.writableNeedDrain) res.once('drain', graceAgain);
      else response.body.abort(ANSWER_WAS_WHOLE);
    };
    const answerWhole = (): boolean =>
      observer.complete && observer.upstreamError === null && (translator === null || translator.hasFinishReason());
    const relay = createSseRelay(
      transform,
      (frames) => {
        // A client that is gone has nothing to wait for: a keyed creation's answer is only read on.
        clientHasRoom = res.destroyed || res.write(frames);
      },
      textGuard,
    );
    let firstByte: number | undefined;
    let bodyStarted = false;
    const wholeJson: Buffer[] = [];
    let wholeJsonBytes = 0;
    try {
      await relayBody(
        response.body,
        res,
        (chunk) => {
          trace.answerBytes(chunk, input.keyMasker);
          firstByte ??= firstByteOf(chunk, !bodyStarted);
          bodyStarted = true;
          if (firstByte === OPEN_BRACE) {
            wholeJson.push(chunk);
            wholeJsonBytes += chunk.length;
            if (wholeJsonBytes > WHOLE_JSON_LIMIT_BYTES)
              response.body.abort(new Error(`the answer is over ${WHOLE_JSON_LIMIT_BYTES} bytes`));
            // Whole, it has the grace a stream has to end: a gateway that keeps it open would hold the client to the idle timeout.
            else if (graceTimer === null && holdsWholeJsonAnswer(wholeJson)) graceTimer = setTimeout(endLingering, END_GRACE_MS);
            return true;
          }
          clientHasRoom = true;
          const events = relay.feed(chunk);
          if (events > 0) trace.streamEventsArrived(events);
          if (clientEnded) return true;
          if (graceTimer === null && answerWhole()) graceTimer = setTimeout(endLingering, END_GRACE_MS);
          // A translated client's usage is said once, at its end: it waits for a usage the gateway may restate
          // (the last wins, as for a chat client reading on), else for the body's end or the grace's.
          if (translator && graceTimer !== null && answerWhole() && observer.usageSettled !== false) void endWhole();
          // A client that got its end takes nothing more: were its socket full, its close would cut the gateway's grace short.
          return clientEnded || clientHasRoom;
        },
        { readOnWithoutClient: input.readsOnWithoutClient === true },
      );
    } catch (error) {
      // Whatever ends the body once the answer is whole failed nothing: the grace, a reset, a coding's
      // lost trailer, or a client that leaves with all of it (Codex closes at response.completed).
      if (graceTimer !== null && firstByte === OPEN_BRACE) {
        // Read for its usage all the same (the gateway bills it whole), but sent only now: a client gone already got none of it.
        await answerWholeJson(Buffer.concat(wholeJson));
        if (classifyStreamError(error, res) === 'client_aborted') failMidStream(input, protocols.client, 'client_aborted', translator);
        return;
      }
      if (graceTimer !== null && observer.upstreamError === null) return await endWhole();
      const errorClass = classifyStreamError(error, res);
      // The row says what broke it: a reset, a limit that ran out, an answer that does not decode or is not valid HTTP (the upstream_errors here).
      const cause =
        errorClass === 'upstream_error'
          ? (error as Error).message
          : `the upstream stream broke off: ${breakCause(error, errorClass, input.profile)}`;
      return failMidStream(input, protocols.client, errorClass, translator, cause);
    } finally {
      if (graceTimer !== null) clearTimeout(graceTimer);
      res.off('drain', graceAgain);
    }
    if (firstByte === OPEN_BRACE) return answerWholeJson(Buffer.concat(wholeJson));
    if (observer.upstreamError !== null) {
      const declared = observer.upstreamError;
      // A tool call or reasoning is part of the answer as much as text is (and billed as output).
      const errorClass = recordDeclaredError(input, declared, trace.outputWritten?.empty === false ? 'stream after output' : 'stream');
      // An error only its event name calls one: the client's SDK reads it as an error in its protocol's own frame.
      const unread = declared.unreadByClients === true && translator === null && !observer.complete;
      res.end(unread ? protocols.client.errors.streamFrame(errorClass, declaredErrorDetail(input, declared)) : undefined);
      return;
    }
    if (!observer.complete && !observer.wholeAtCleanEnd) {
      const cause = `${STREAM_ENDED_EARLY_CAUSE} cleanly before its answer was whole, without ${observer.awaiting} (stream_interrupted)`;
      return failMidStream(input, protocols.client, 'stream_interrupted', translator, cause, STREAM_ENDED_EARLY_CODE);
    }
    // `[DONE]` ends a chat stream, but a translated answer is whole only with the finish_reason its ending is made from.
    if (translator && !translator.hasFinishReason()) {
      const cause = `${STREAM_ENDED_EARLY_CAUSE} without a finish_reason`;
      return failMidStream(input, protocols.client, 'stream_interrupted', translator, cause, STREAM_ENDED_EARLY_CODE);
    }
    await endWhole();
  } finally {
    maskLogCopy();
  }
}

/**
 * A whole answer's end, for a translated client its final events first. Where the gateway stated no
 * usage they state an estimate, not nothing: Claude Code sizes its context (and arms its
 * compaction) by message_delta's usage, Codex by response.completed's.
 */
async function endTranslatedClient(input: RelayInput, translator: StreamEventTranslator | null): Promise<void> {
  const { res, trace } = input;
  if (translator !== null) {
    const unreportedUsage = trace.usage === null ? await estimatedUsage(input) : null;
    if (res.destroyed) return;
    res.write(translator.finish(unreportedUsage).join(''));
  }
  res.end();
}

/** The estimate a translated client is told (accounting.ts); none (its usage left unstated, as before) if it failed. */
export async function estimatedUsage(input: RelayInput): Promise<TokenUsage | null> {
  try {
    return await answerUsageForClient(input.trace, input.plan, input.profile);
  } catch {
    return null;
  }
}
