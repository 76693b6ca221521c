import type { ServerResponse } from 'node:http';
import type { ErrorClass } from '../contracts/errors.ts';
import type { Profile } from '../contracts/profile.ts';
import type { TokenUsage } from '../contracts/usage.ts';
import { buildClientResponseHeaders } from './headers.ts';
import type { KeyMasker } from '../core/keyMasker.ts';
import type { ExchangePlan } from './plan.ts';
import type { DeclaredError, ProtocolStream, ResponseTranslator } from '../protocols/adapter.ts';
import { completionAsChunk } from '../protocols/chat/chatShapes.ts';
import { declaredErrorClass } from '../protocols/declaredError.ts';
import type { ProtocolRoute } from '../protocols/registry.ts';
import { declaredErrorDetail, protocolsOf, recordDeclaredError, type RelayProtocols } from './answerRecords.ts';
import { estimatedUsage, relayStream } from './streamRelay.ts';
import { answerOfEvents, readStreamAsAnswer } from './wholeFromStream.ts';
import type { RequestTrace } from './trace.ts';
import { answerText, jsonUnderStreamLabel, readBody, relayBody } from './upstreamBody.ts';
import type { UpstreamResponse } from './upstreamClient.ts';
import { isCutShortJson } from './cutShortJson.ts';
import { failAnswer, failCutShort, failEmpty, failMidBody, failNotJson, failPassedCutShort } from './relayFailures.ts';
import { writtenInWholeAnswer } from './outputTally.ts';
import { LargeAnswerMembers, type PassedAnswerMembers, writtenInMembers } from './passedAnswerMembers.ts';
import { writeAnswerHead } from './answerHead.ts';
import { maskNestedEscapes } from '../core/nestedEscapes.ts';

/** A protocol's JSON answer is read whole (to check it, read its usage, translate it); beyond this it is refused. */
const PROTOCOL_JSON_LIMIT_BYTES = 64 * 1024 * 1024;

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
  /** Every key the answer must not show (a pool's keys all). */
  knownSecrets: readonly string[];
  /** The gateway's id for this answer (key masked): an answer that turns out to be a failure passes it on. */
  upstreamRequestId: string | null;
}

/** The upstream answered with success: pass it on as it arrives, translated where the plan says. */
export async function relayResponse(input: RelayInput): Promise<void> {
  const { res, plan, trace, response, contentType } = input;
  const protocols = protocolsOf(plan);
  const isSse = contentType?.toLowerCase().includes('text/event-stream') ?? false;
  // A protocol's own JSON answer is read whole first; anything else passes through as it arrives.
  const readWhole = !isSse && protocols.upstream.endpoint !== 'other';
  const headers = buildClientResponseHeaders(response.headers, { bodyRewritten: isSse || readWhole });
  // A JSON answer passed through ends for its client only once it is checked whole (relayPassedBody):
  // told no length, a client reads one cut short as broken off, not as an answer that ended. A HEAD answer has no body to check.
  if (!isSse && !readWhole && labelsJson(contentType) && input.plan.method !== 'HEAD') delete headers['content-length'];
  input.keyMasker.maskHeaders(headers);
  trace.responseHeadersSent(headers);
  const wholeAnswer = wholeAnswerOf(protocols);
  if (isSse && !plan.stream && wholeAnswer) {
    const answer = await readStreamAsAnswer(input, protocols, wholeAnswer);
    return answer === null ? undefined : answerProtocolJson({ ...input, contentType: 'application/json' }, protocols, headers, answer);
  }
  if (isSse) {
    writeAnswerHead(res, response.statusCode, {
      ...headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no',
    });
    res.flushHeaders();
    const answerWholeJson = (bytes: Buffer): void | Promise<void> =>
      answerProtocolJson(input, protocols, headers, Buffer.from(jsonUnderStreamLabel(bytes)));
    return relayStream(input, protocols, answerWholeJson);
  }
  if (readWhole) return relayProtocolJson(input, protocols, headers);
  return relayPassedBody(input, protocols.upstream, headers);
}

/** How a protocol's event stream starts (an event's name or data), where its label said JSON. */
const EVENT_STREAM_START = /^(?:event|data):/;

/** What puts a protocol's events together into its whole answer; none for an endpoint that is not a model's answer. */
function wholeAnswerOf(protocols: RelayProtocols): ProtocolStream['wholeAnswer'] {
  return protocols.upstream.endpoint === 'generate' ? protocols.upstream.adapter.stream.wholeAnswer : undefined;
}

/** Bytes kept of an answer labelled JSON that is not, for the error message. */
const NOT_JSON_KEPT_BYTES = 4096;

/**
 * Anything else passes through as it arrives. One labelled JSON waits for its first byte that is
 * not white space: a JSON answer starts with `{` or `[`, and one that does not (a maintenance
 * text under a JSON label) is the wrong address answering, never passed on as a success.
 */
async function relayPassedBody(input: RelayInput, upstream: ProtocolRoute, headers: Record<string, string | string[]>): Promise<void> {
  const { res, trace, response, contentType } = input;
  const labelledJson = labelsJson(contentType);
  // Changed by the chunk callback: an object, so the checks after the relay read its current value.
  const answer: { verdict: 'pending' | 'pass' | 'notJson' } = { verdict: labelledJson ? 'pending' : 'pass' };
  const held: Buffer[] = [];
  let heldBytes = 0;
  let passedBytes = 0;
  // Its usage and model are read from it where it says JSON (or nothing); other bodies (audio, files) are not decoded.
  const readsJson = contentType === null || labelledJson;
  const largeAnswer = readsJson ? new LargeAnswerMembers(upstream.adapter.billedAnswerItems ?? null) : null;
  // The Content-Length is out with the headers: the key becomes a mask of its own length.
  const keyFree = input.keyMasker.byteStream();
  const pass = (chunk: Buffer): boolean => {
    const passed = keyFree.push(chunk);
    // A client that is gone has nothing to wait for: the answer is only read on.
    return res.destroyed || passed.length === 0 || res.write(passed);
  };
  if (answer.verdict === 'pass') writeAnswerHead(res, response.statusCode, headers);
  try {
    await relayBody(
      response.body,
      res,
      (chunk) => {
        trace.answerBytes(chunk, input.keyMasker);
        passedBytes += chunk.length;
        largeAnswer?.passed(chunk, trace.responseBody.pastLogLimit);
        if (answer.verdict === 'pass') return pass(chunk);
        if (heldBytes < NOT_JSON_KEPT_BYTES) held.push(chunk);
        heldBytes += chunk.length;
        if (answer.verdict === 'notJson') return true;
        const start = Buffer.concat(held).toString('utf8').trimStart();
        if (start === '') return true;
        answer.verdict = start.startsWith('{') || start.startsWith('[') ? 'pass' : 'notJson';
        if (answer.verdict === 'notJson') return true;
        writeAnswerHead(res, response.statusCode, headers);
        return pass(Buffer.concat(held));
      },
      { readOnWithoutClient: input.readsOnWithoutClient === true },
    );
  } catch (error) {
    return failMidBody(input, error);
  }
  if (answer.verdict === 'notJson') return failNotJson(input, Buffer.concat(held).toString('utf8'));
  if (answer.verdict === 'pending') writeAnswerHead(res, response.statusCode, headers);
  // Read before its end goes out: one cut short (a relay ending its body in order when its copy broke) is no answer to end.
  const read = largeAnswer === null ? null : readPassedAnswer(input, largeAnswer);
  if (read === 'cutShort' && labelledJson) return failPassedCutShort(input, passedBytes);
  res.end(keyFree.end());
  if (read !== null && read !== 'cutShort') recordPassedAnswer(input, upstream, read);
}

type PassedAnswer = { whole: object } | { members: PassedAnswerMembers };

/** An answer passed through, as JSON: from the log's copy, or past its limit from what passed; null when it is none. */
function readPassedAnswer(input: RelayInput, largeAnswer: LargeAnswerMembers): PassedAnswer | 'cutShort' | null {
  const { trace } = input;
  if (trace.responseBody.pastLogLimit) {
    const members = largeAnswer.members();
    if (members === null) return null;
    return members.cutShort ? 'cutShort' : { members };
  }
  const body = trace.responseBody.toBuffer();
  if (!body) return null;
  const text = answerText(body);
  try {
    return { whole: JSON.parse(text) as object };
  } catch {
    // Not JSON (an embedding in another format, say): nothing to account from it.
    return isCutShortJson(text) ? 'cutShort' : null;
  }
}

/** Usage, model and a declared error of an answer passed through. */
function recordPassedAnswer(input: RelayInput, upstream: ProtocolRoute, read: PassedAnswer): void {
  if ('members' in read) {
    recordLargeAnswer(input, upstream, read.members);
    return;
  }
  const declared = recordAnswerFields(input, upstream, read.whole);
  if (declared !== null) recordDeclaredError(input, declared, 'body');
}

function labelsJson(contentType: string | null): boolean {
  return contentType?.toLowerCase().includes('json') ?? false;
}

/**
 * An answer larger than the log keeps (an embeddings batch, a long completion): read from the members
 * kept as it passed, not the log's cut copy, so the gateway's usage is billed; without it, what the
 * model wrote is estimated from all of it.
 */
function recordLargeAnswer(input: RelayInput, upstream: ProtocolRoute, members: PassedAnswerMembers): void {
  if (members.kept === null) return;
  const declared = recordAnswerFields(input, upstream, members.kept);
  // Images too large to keep, counted as they passed: billed each, as readAnswer bills those it reads.
  if (members.countedItems !== null && members.countedItems > 1) input.trace.callsAnswered(members.countedItems);
  if (input.trace.usage === null) input.trace.wholeAnswerWrote(writtenInMembers(members));
  if (declared !== null) recordDeclaredError(input, declared, 'body');
}

/** Usage and model into the trace; returns the error the answer holds instead of an answer, if it does. */
function recordAnswerFields(input: RelayInput, upstream: ProtocolRoute, json: object): DeclaredError | null {
  const { trace } = input;
  const { usage, model, error, calls } = upstream.adapter.readAnswer(json, upstream.endpoint, input.response.headers);
  if (model !== null) trace.modelAnswered(model);
  if (calls !== undefined) trace.callsAnswered(calls);
  if (usage) trace.setUsage(usage);
  return error;
}

/**
 * A chat, Messages or Responses answer (not streamed): parsed once for its usage, checked to be
 * JSON (a 200 that is not, a maintenance text say, is the wrong address answering, never passed on
 * as a success) and translated where the plan says.
 */
async function relayProtocolJson(input: RelayInput, protocols: RelayProtocols, headers: Record<string, string | string[]>): Promise<void> {
  const { trace, response } = input;
  let bytes: Buffer;
  try {
    const chunks = await readBody(response.body, {
      keepBytes: PROTOCOL_JSON_LIMIT_BYTES,
      maxBytes: PROTOCOL_JSON_LIMIT_BYTES,
      onChunk: (chunk) => trace.answerBytes(chunk, input.keyMasker),
    });
    // Most answers arrive in one read: that chunk is the whole body, no copy needed.
    bytes = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
  } catch (error) {
    return failMidBody(input, error);
  }
  return answerProtocolJson(input, protocols, headers, bytes);
}

/** A protocol's whole answer, read: checked, its usage recorded, translated where the plan says, and sent. */
function answerProtocolJson(
  input: RelayInput,
  protocols: RelayProtocols,
  headers: Record<string, string | string[]>,
  bytes: Buffer,
): void | Promise<void> {
  const { trace } = input;
  const text = answerText(bytes);
  if (text.trim() === '') return failEmpty(input);
  const answer = parseJsonObject(text);
  if (answer === null) {
    // An event stream under a JSON label: the answer it amounts to, as for one under its own label (wholeFromStream.ts).
    const wholeAnswer = wholeAnswerOf(protocols);
    if (wholeAnswer === undefined || !EVENT_STREAM_START.test(text.trimStart())) {
      return isCutShortJson(text) ? failCutShort(input, bytes.length) : failNotJson(input, text);
    }
    const assembled = answerOfEvents(input, protocols, wholeAnswer, bytes);
    return assembled === null ? undefined : answerProtocolJson(input, protocols, headers, assembled);
  }
  const { keyMasker } = input;
  // Fields a client joins (chat's logprob tokens) and strings escaped twice (tool arguments) masked in the answer, which is
  // then written anew; else its escapes, which spell the key out to a parse, the log's reader's too, whatever form the client gets it in.
  const tokensMasked = protocols.upstream.adapter.maskJoinedFields?.(answer, keyMasker) === true;
  const joinedMasked = maskNestedEscapes(text, answer, keyMasker) || tokensMasked;
  const rewritten = joinedMasked
    ? keyMasker.maskText(JSON.stringify(answer))
    : keyMasker.holdsEscapedForm(text)
      ? keyMasker.maskText(text)
      : null;
  if (rewritten !== null) trace.answerBytesMasked(rewritten);
  const declared = recordAnswerFields(input, protocols.upstream, answer);
  // Translated from its masked text, as a stream from its guarded events: what the translation encodes
  // (a relay's thinking in its mark) then holds the mask, not the key's encoding with a mask cut into it.
  const translatedFrom = input.plan.translator ? (maskedAnswerOf(keyMasker, text, rewritten) ?? answer) : answer;
  const read = { bytes, text, answer: translatedFrom, declared, rewritten };
  if (trace.usage !== null) return sendProtocolAnswer(input, protocols, headers, read, null);
  // Without usage the output is estimated: from all of the answer, read here, not the log's copy cut at its limit.
  if (input.plan.translator && declared === null) {
    // A translated client is told the estimate, not nothing (as a stream's end: endTranslatedClient), so it is read first.
    trace.wholeAnswerWrote(writtenInWholeAnswer(answer, bytes.length));
    return estimatedUsage(input).then((unreportedUsage) => {
      if (!input.res.destroyed) sendProtocolAnswer(input, protocols, headers, read, unreportedUsage);
    });
  }
  // Only once the answer is sent: reading it for the estimate never holds the client up.
  sendProtocolAnswer(input, protocols, headers, read, null);
  trace.wholeAnswerWrote(writtenInWholeAnswer(answer, bytes.length));
}

/**
 * A protocol's whole answer, parsed and recorded: the client gets it (or the error it declared) as the plan says;
 * `unreportedUsage`: the usage a translated answer states where the gateway stated none (accounting.ts).
 */
function sendProtocolAnswer(
  input: RelayInput,
  protocols: RelayProtocols,
  headers: Record<string, string | string[]>,
  {
    bytes,
    text,
    answer,
    declared,
    rewritten,
  }: { bytes: Buffer; text: string; answer: object; declared: DeclaredError | null; rewritten: string | null },
  unreportedUsage: TokenUsage | null,
) {
  const { res, plan, trace, response } = input;
  if (declared !== null && (plan.translator || plan.stream)) {
    // Translated, the client would get an empty answer in its protocol; streamed, its SDK reads the JSON as no
    // events and ends empty, no error. Nothing is sent yet: it gets the error in its shape, with the status its retries key on.
    failAnswer(input, declaredErrorClass(declared), declaredErrorDetail(input, declared));
    trace.gatewayDeclaredFailure();
    return;
  }
  if (declared !== null) recordDeclaredError(input, declared, 'body');
  if (plan.translator && plan.stream) return relayWholeAsStream(input, plan.translator, answer, headers, unreportedUsage);
  // A client that asked for a stream reads a JSON body as no events at all: an empty answer, no error.
  const asStream = plan.stream ? protocols.upstream.adapter.stream.answerAsStream : undefined;
  const events = asStream?.(answer, plan.usageAsked && !plan.usageInjected) ?? null;
  if (events !== null) return sendWholeStream(input, headers, events);
  // The event stream is open already (one JSON answer under its label), and the answer makes no events.
  if (res.headersSent)
    return failAnswer(input, 'upstream_error', { upstreamMessage: "the gateway's answer holds no reply to send as events" });
  // As received, the key masked by a mask of its own length (as a passed-through body is); translated, rewritten anyway.
  let payload: Buffer;
  if (plan.translator) {
    try {
      payload = Buffer.from(input.keyMasker.maskText(JSON.stringify(plan.translator.translateJson(answer, unreportedUsage))));
    } catch (error) {
      const upstreamMessage = input.keyMasker.maskText(`the gateway's answer could not be translated: ${(error as Error).message}`);
      return failAnswer(input, 'upstream_error', { upstreamMessage });
    }
  } else if (rewritten !== null) {
    payload = Buffer.from(rewritten);
  } else {
    // Not rewritten: `text` holds no escaped form (answerProtocolJson looked), and the forms are ASCII, found in the
    // bytes' UTF-8 text where in their own. An answer without one is sent as received, without a second text of it to search.
    payload = input.keyMasker.holdsFormAsWritten(text) ? input.keyMasker.maskBytes(bytes) : bytes;
  }
  writeAnswerHead(res, response.statusCode, {
    ...headers,
    'content-type': plan.translator ? 'application/json' : (input.contentType ?? 'application/json'),
    'content-length': String(payload.length),
  });
  res.end(payload);
}

/**
 * A gateway that ignores `stream: true` answers a whole completion, but the client asked for events
 * and reads nothing else (Codex fails a turn without response.completed): it gets the completion as
 * the one chunk it amounts to, through the stream translator.
 */
function relayWholeAsStream(
  input: RelayInput,
  translator: ResponseTranslator,
  answer: object,
  headers: Record<string, string | string[]>,
  unreportedUsage: TokenUsage | null,
): void {
  const chunk = completionAsChunk(answer);
  if (chunk === null) {
    failAnswer(input, 'upstream_error', { upstreamMessage: "the gateway's answer could not be translated: it holds no reply" });
    return;
  }
  const stream = translator.createStream();
  sendWholeStream(input, headers, [...stream.push({ data: JSON.stringify(chunk) }), ...stream.finish(unreportedUsage)].join(''));
}

/** A whole answer turned into the events the client asked for, sent at once, key masked. */
function sendWholeStream(input: RelayInput, headers: Record<string, string | string[]>, frames: string): void {
  // One JSON answer under the event-stream label: the stream's headers went out before its body came.
  if (!input.res.headersSent) {
    writeAnswerHead(input.res, input.response.statusCode, {
      ...headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
    });
  }
  input.res.end(input.keyMasker.maskText(frames));
}

/** The answer as its masked text reads; null when the text holds no form of the key. */
function maskedAnswerOf(keyMasker: KeyMasker, text: string, rewritten: string | null): object | null {
  if (rewritten !== null) return parseJsonObject(rewritten);
  return keyMasker.holdsForm(text) ? parseJsonObject(keyMasker.maskText(text)) : null;
}

function parseJsonObject(text: string): object | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? value : null;
  } catch {
    return null;
  }
}
