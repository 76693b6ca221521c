import type { IncomingMessage, ServerResponse } from 'node:http';
import { MAX_JSON_NESTING_DEPTH, PARSE_ON_LOOP_MAX_BYTES, PARSE_ON_LOOP_MAX_STRUCTURAL_MARKS } from '../contracts/defaults.ts';
import { LeadingByteOrderMark } from '../core/byteOrderMark.ts';
import { jsonParseFailure } from '../core/jsonSyntaxError.ts';
import { contentCodingOf, contentDecoder } from './answerDecoding.ts';
import { TopLevelScanner, type TopLevelScan } from './jsonScan.ts';
import { FIRST_SCAN_BYTES, ScanQueue } from './scanQueue.ts';
import { memberInAnotherCaseMessage, repeatedFieldMessage, repeatedMemberMessage } from './ambiguousMembers.ts';
import { readFormFields, type FormFields } from './multipartForm.ts';
import { ARRIVING_BODY_MIN_BYTES, ArrivingBody } from './arrivingBody.ts';
import { UploadTimedOutError, watchRequestTimeout } from './uploadStall.ts';

export interface ClientBody {
  chunks: Buffer[];
  byteLength: number;
  /** What the scan found while the body arrived; null when it is not JSON (by its content type). */
  scan: TopLevelScan | null;
  /**
   * Set when the read handed the body on before its end (`sendsEarly`): `chunks` and `byteLength`
   * go on growing until it completes, and `scan` goes on scanning.
   */
  arriving?: ArrivingBody;
}

/** The body passed the profile's limit: nothing more of it is kept. */
export class BodyTooLargeError extends Error {
  readonly limitBytes: number;
  /** The size the client declared (Content-Length); null for a chunked body cut off at the limit. */
  readonly declaredBytes: number | null;
  constructor(limitBytes: number, declaredBytes: number | null) {
    super(`the request body is larger than ${limitBytes} bytes`);
    this.name = 'BodyTooLargeError';
    this.limitBytes = limitBytes;
    this.declaredBytes = declaredBytes;
  }
}

/**
 * A compressed body Airlock cannot read: a coding it has no decoder for (415, before reading), or
 * bytes that are not in the coding they claim (400). Either way nothing was sent to the gateway.
 */
export class BodyDecodingError extends Error {
  override readonly name = 'BodyDecodingError';
  readonly status: 400 | 415;
  constructor(status: 400 | 415, message: string) {
    super(message);
    this.status = status;
  }
}

const JSON_CONTENT_TYPE = /[/+]json\b/i;
/**
 * The types a JSON body is commonly sent under by mistake: `curl -d` declares a form, `fetch` with a
 * string body declares text/plain. No API takes a form or text starting with `{`, so such a body is JSON.
 */
const MISDECLARED_JSON_CONTENT_TYPE = /^\s*(?:text\/plain|application\/x-www-form-urlencoded)\s*(?:;|$)/i;

/** The content type the gateway is told for a body Airlock read as JSON when the client declared another. */
const JSON_CONTENT_TYPE_HEADER = 'application/json';

function declaresJson(contentType: string | undefined): boolean {
  return contentType !== undefined && JSON_CONTENT_TYPE.test(contentType);
}

/**
 * A JSON content type, none at all, or one a JSON body is commonly sent under by mistake: then the
 * scan decides by the first byte, as a `{` would.
 */
export function mayBeJson(contentType: string | undefined): boolean {
  return contentType === undefined || declaresJson(contentType) || MISDECLARED_JSON_CONTENT_TYPE.test(contentType);
}

/**
 * A body declared at least this large is copied, as it arrives, into one buffer of its exact size.
 * Kept as received, its 64 KiB socket reads filled the allocator's heap, which keeps what is freed
 * (three 60 MB bodies left 210 MB held for good); glibc maps an allocation of 32 MiB or more on its
 * own and gives it back when freed. The reads wait for a garbage collection meanwhile, so the peak
 * nears twice the body: smaller bodies, whose reads leave little behind, are kept as received.
 */
export const CONTIGUOUS_BODY_MIN_BYTES = 32 * 1024 * 1024;

const continued = new WeakSet<ServerResponse>();

/**
 * Tells a client that sent `Expect: 100-continue` to send its body, once per request. Until then
 * it sends nothing, so a request refused before its body is read (too large, no token) costs no
 * upload; answering without it closes the connection, as the client has not sent the body.
 */
export function sendContinue(req: IncomingMessage, res: ServerResponse): void {
  const expect = req.headers.expect;
  if (expect === undefined || continued.has(res) || !/^100-continue$/i.test(expect)) return;
  continued.add(res);
  res.writeContinue();
}

/**
 * Reads the body as the chunks that arrived: no concatenated copy. A JSON body is scanned as it
 * arrives (top-level fields, nesting, cost to parse), a slice per turn of the event loop, so no
 * step has to walk it whole on the forwarding loop. A declared size past `limitBytes` is refused
 * before reading; a chunked body is cut off when it passes the limit, and the rest is read and
 * dropped (a client that is still sending then reads the refusal instead of a reset). Plain stream
 * events rather than `for await`: the async iterator's set-up showed in the per-request profile.
 * Rejects when the client goes away (or the stream fails) before the body ended, `signal` aborts, or
 * the server's requestTimeout runs out (UploadTimedOutError).
 * A compressed body (Codex sends its requests in zstd) is decoded as it arrives: everything after,
 * the limit included, sees the decoded bytes, so a small coded body cannot unpack past the limit.
 */
export function readClientBody(
  req: IncomingMessage,
  res: ServerResponse,
  options: {
    limitBytes: number;
    maxJsonDepth: number;
    signal?: AbortSignal;
    /**
     * Asked while the first scan slice of a large JSON body (ARRIVING_BODY_MIN_BYTES, declared,
     * uncoded) arrives: true hands the body on at once, as an ArrivingBody, its read going on.
     */
    sendsEarly?: (sofar: ClientBody) => boolean;
  },
): Promise<ClientBody> {
  const declared = req.headers['content-length'] === undefined ? null : Number(req.headers['content-length']);
  if (declared !== null && declared > options.limitBytes) return Promise.reject(new BodyTooLargeError(options.limitBytes, declared));
  const coding = contentCodingOf(req.headers);
  const decoder = coding === null ? null : contentDecoder(coding);
  if (coding !== null && decoder === null) return Promise.reject(undecodableCoding(coding));
  sendContinue(req, res);
  return new Promise((resolve, reject) => {
    let chunks: Buffer[] = [];
    let byteLength = 0;
    let codedBytes = 0;
    // A declared size is of the coded bytes when there is a coding: no guide to the decoded size.
    let whole = decoder === null && declared !== null && declared >= CONTIGUOUS_BODY_MIN_BYTES ? Buffer.allocUnsafeSlow(declared) : null;
    const scanner = mayBeJson(req.headers['content-type']) ? new TopLevelScanner(options.maxJsonDepth) : null;
    // The first slice is scanned as it arrives; past it, a slice per turn.
    let queue: ScanQueue | null = null;
    let early: ClientBody | null = null;
    let mayStartEarly =
      options.sendsEarly !== undefined &&
      scanner !== null &&
      decoder === null &&
      declared !== null &&
      declared >= ARRIVING_BODY_MIN_BYTES &&
      whole === null;
    // A JSON body's mark (PowerShell, curl --data-binary @file) made an object "not a JSON object".
    const mark = scanner === null ? null : new LeadingByteOrderMark();
    const onData = (read: Buffer): void => {
      const start = byteLength;
      const chunk = mark === null ? read : mark.take(read);
      if (chunk === null) return;
      byteLength += chunk.length;
      if (byteLength > options.limitBytes) {
        chunks = [];
        settle(new BodyTooLargeError(options.limitBytes, null));
        req.resume();
        return;
      }
      // Refused for its nesting once read: the rest is counted, never kept. One already going on is refused at its end (arrivingBody.ts).
      if (scanner?.result.tooDeep && early === null) {
        chunks = [];
        whole = null;
        return;
      }
      let kept = chunk;
      if (whole !== null) {
        chunk.copy(whole, start);
        kept = whole.subarray(start, byteLength);
      } else {
        chunks.push(chunk);
      }
      if (scanner === null) return;
      if (queue === null && byteLength <= FIRST_SCAN_BYTES) scanner.feed(kept);
      else {
        queue ??= new ScanQueue(scanner);
        queue.push(kept);
      }
      if (early !== null) {
        early.byteLength = byteLength;
        early.arriving?.arrived();
      } else if (mayStartEarly) startEarly();
    };
    // Only while the scan has kept up with the bytes (its first slice): what it found is what arrived so far.
    const startEarly = (): void => {
      const sofar: ClientBody = { chunks, byteLength, scan: scanner?.result ?? null };
      if (queue !== null || !(options.sendsEarly?.(sofar) ?? false)) {
        mayStartEarly = queue === null;
        return;
      }
      mayStartEarly = false;
      sofar.arriving = new ArrivingBody(chunks, declared as number);
      early = sofar;
      resolve(sofar);
    };
    const settle = (error: Error | null): void => {
      unwatchTimeout();
      options.signal?.removeEventListener('abort', onAbort);
      req.off('data', onRequestData);
      req.off('end', onRequestEnd);
      req.off('error', onError);
      req.off('close', onClose);
      if (decoder !== null) {
        decoder.removeAllListeners();
        // Whatever it still holds is dropped: a late error of a decoder no one reads is no one's.
        decoder.on('error', ignoreError);
        decoder.destroy();
      }
      // A body of one or two bytes that began like the mark is kept as it came.
      const held = error ? null : mark?.rest();
      if (held) onData(held);
      if (error) {
        queue?.clear();
        whole = null;
        if (early !== null) early.arriving?.fail(error);
        else reject(error);
        return;
      }
      if (whole !== null) chunks = [whole.subarray(0, byteLength)];
      whole = null;
      const done = (): void => {
        if (early !== null) early.arriving?.ended(scanner?.result as TopLevelScan);
        else resolve({ chunks: scanner?.result.tooDeep ? [] : chunks, byteLength, scan: scanner?.result ?? null });
      };
      if (queue === null) done();
      else void queue.drained().then(done);
    };
    const onRequestData =
      decoder === null
        ? onData
        : (chunk: Buffer): void => {
            codedBytes += chunk.length;
            // Bounds what the decoder may hold unread, whatever the coding: no real body shrinks when compressed.
            if (codedBytes > options.limitBytes) {
              settle(new BodyTooLargeError(options.limitBytes, null));
              req.resume();
              return;
            }
            decoder.write(chunk);
          };
    const onRequestEnd = (): void => {
      // An empty body has no coded form (a decoder fed nothing fails on it).
      if (decoder === null || codedBytes === 0) {
        settle(null);
        return;
      }
      // All of it arrived: the client leaving now no longer cuts the body the decoder still holds.
      req.off('close', onClose);
      decoder.end();
    };
    const onError = (error: Error): void => settle(error);
    const onClose = (): void => settle(new Error('the client closed the connection before its request body ended'));
    const onAbort = (): void => settle(new Error('the body was no longer read'));
    // The server's requestTimeout ends the read, not the connection: the request's handler answers why (startServer.ts).
    let unwatchTimeout = (): void => {};
    if (options.signal?.aborted) return onAbort();
    unwatchTimeout = watchRequestTimeout(req.socket, (requestTimeoutMs) =>
      settle(new UploadTimedOutError(decoder === null ? byteLength : codedBytes, declared, requestTimeoutMs)),
    );
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (decoder !== null) {
      decoder.on('data', onData);
      decoder.once('end', () => settle(null));
      decoder.once('error', (error: Error) => settle(undecodableBytes(coding as string, error)));
    }
    // `on`, not `once`: settle takes all of them off at the first, and once's wrapper for each cost a request about 0.1 KB.
    req.on('data', onRequestData);
    req.on('end', onRequestEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

function ignoreError(): void {}

function undecodableCoding(coding: string): BodyDecodingError {
  return new BodyDecodingError(
    415,
    `the request body is compressed (content-encoding: ${coding}) in a coding Airlock cannot decode; ` +
      'send it uncompressed or in gzip, deflate, br or zstd',
  );
}

function undecodableBytes(coding: string, error: Error): BodyDecodingError {
  return new BodyDecodingError(
    400,
    `the request body is not valid ${coding} although it says content-encoding: ${coding} (${error.message}); ` +
      'send it uncompressed, or compressed as it says',
  );
}

export type ParsedBody =
  | { kind: 'empty' }
  | { kind: 'json'; value: Record<string, unknown> }
  /** A JSON object too large or intricate to parse on the forwarding loop: only its scan is known. */
  | { kind: 'scanned-json'; scan: TopLevelScan }
  /** A multipart form (uploads): its few text fields are read, its files never. */
  | { kind: 'form'; fields: FormFields }
  | { kind: 'opaque' }
  | { kind: 'invalid'; message: string };

/** What the forwarding loop may parse itself: JSON.parse of such a body takes a few milliseconds at most, whatever its shape. */
export interface ParseOnLoopLimits {
  maxBytes: number;
  maxStructuralMarks: number;
  maxDepth: number;
}

export function parseClientBody(body: ClientBody, contentType: string | undefined, limits: ParseOnLoopLimits): ParsedBody {
  if (body.byteLength === 0) return { kind: 'empty' };
  const scan = body.scan;
  if (scan === null) {
    const fields = readFormFields(body.chunks, contentType);
    if (fields === null) return { kind: 'opaque' };
    return fields.repeatedField === null
      ? { kind: 'form', fields }
      : { kind: 'invalid', message: repeatedFieldMessage(fields.repeatedField) };
  }
  // Without a JSON content type, only a body that starts as an object is taken for JSON. With one, no
  // endpoint takes anything else: refused unparsed (the scan stopped at its first byte).
  if (!scan.isObject)
    return declaresJson(contentType) ? { kind: 'invalid', message: 'the request body must be a JSON object' } : { kind: 'opaque' };
  if (scan.tooDeep) {
    return {
      kind: 'invalid',
      message: `the request body nests objects and arrays more than ${limits.maxDepth} levels deep, Airlock's limit (real requests nest a few dozen at most)`,
    };
  }
  if (scan.repeatedMember !== null) return { kind: 'invalid', message: repeatedMemberMessage(scan.repeatedMember) };
  if (scan.memberInAnotherCase !== null) return { kind: 'invalid', message: memberInAnotherCaseMessage(scan.memberInAnotherCase) };
  if (body.byteLength > limits.maxBytes || scan.structuralMarks > limits.maxStructuralMarks) return { kind: 'scanned-json', scan };
  const text = (body.chunks.length === 1 ? body.chunks[0]! : Buffer.concat(body.chunks, body.byteLength)).toString('utf8');
  try {
    const value: unknown = JSON.parse(text);
    return { kind: 'json', value: value as Record<string, unknown> };
  } catch (error) {
    return { kind: 'invalid', message: `the request body is not valid JSON (${jsonParseFailure(text, error)})` };
  }
}

/** A client body parsed within what the forwarding loop may parse itself (the defaults' limits): at its plan, and again at each fallback step's. */
export function parseClientBodyOnLoop(body: ClientBody, contentType: string | undefined): ParsedBody {
  return parseClientBody(body, contentType, {
    maxBytes: PARSE_ON_LOOP_MAX_BYTES,
    maxStructuralMarks: PARSE_ON_LOOP_MAX_STRUCTURAL_MARKS,
    maxDepth: MAX_JSON_NESTING_DEPTH,
  });
}

/** Whether Airlock read the body as a JSON object (parsed, or only scanned). */
export function isJsonObject(parsed: ParsedBody): parsed is Extract<ParsedBody, { kind: 'json' | 'scanned-json' }> {
  return parsed.kind === 'json' || parsed.kind === 'scanned-json';
}

/**
 * The content type to send instead of the client's: a body read as JSON that the client declared as
 * something else or nothing would not be read as JSON by gateways that go by the declared type.
 */
export function upstreamContentType(parsed: ParsedBody, declared: string | undefined): string | null {
  return isJsonObject(parsed) && !declaresJson(declared) ? JSON_CONTENT_TYPE_HEADER : null;
}

export function modelOf(parsed: ParsedBody): string | null {
  if (parsed.kind === 'json') return typeof parsed.value.model === 'string' ? parsed.value.model : null;
  if (parsed.kind === 'scanned-json') return parsed.scan.model;
  if (parsed.kind === 'form') return parsed.fields.model;
  return null;
}

export function streamFlagOf(parsed: ParsedBody): boolean {
  if (parsed.kind === 'json') return parsed.value.stream === true;
  if (parsed.kind === 'scanned-json') return parsed.scan.stream === true;
  if (parsed.kind === 'form') return parsed.fields.stream;
  return false;
}
