import type { RequestBodiesRecord } from '../../contracts/log.ts';
import { redactSecrets, redactsNone } from '../../core/redact.ts';
import type { CapturedBodies } from '../../contracts/lifecycle.ts';
import { pickAllowedHeaders } from '../../core/headerAllowlist.ts';
import { headerNameSecrets } from '../../core/keyMasker.ts';

export const DEFAULT_BODY_CAP_BYTES = 1024 * 1024;

const BINARY_CONTENT_TYPES = /^(multipart\/|image\/|audio\/|video\/|application\/(octet-stream|zip|gzip|pdf))/i;

/** How large a captured body was as a whole: the capture keeps only its start. */
interface BodySize {
  /** Its Content-Length, when it had one. */
  declared: string | undefined;
  /** The capture stopped at its limit. */
  truncated: boolean;
}

/** How the stored text of a binary body starts: it describes the body, it is not the body. */
const BINARY_BODY_PREFIX = '[binary body not logged: ';
const BINARY_BODY_DESCRIPTION = /^\[binary body not logged: (more than )?\d+ bytes(, [^\n]*)?\]$/;

/** Whether a stored body is the description decodeBody puts in place of a binary body. */
export function isBinaryBodyDescription(text: string): boolean {
  return text.startsWith(BINARY_BODY_PREFIX) && BINARY_BODY_DESCRIPTION.test(text);
}

/**
 * Text as stored: binary payloads (uploads, images) are replaced by a short description, because
 * their bytes are useless to read and would only crowd out other requests under the size cap. The
 * size it gives is the body's, not the capture's (a 50 MB upload is not "1048576 bytes").
 */
export function decodeBody(body: Buffer | null, contentType: string | undefined, size?: BodySize): string | null {
  if (body === null) return null;
  if ((contentType !== undefined && BINARY_CONTENT_TYPES.test(contentType)) || body.includes(0)) {
    return `${BINARY_BODY_PREFIX}${sizeText(body, size)} bytes${contentType ? `, ${contentType}` : ''}]`;
  }
  return body.toString('utf8');
}

function sizeText(body: Buffer, size: BodySize | undefined): string {
  const declared = Number(size?.declared);
  if (size?.declared !== undefined && Number.isSafeInteger(declared) && declared >= body.length) return String(declared);
  return size?.truncated === true ? `more than ${body.length}` : String(body.length);
}

/** A UTF-16 code unit takes at most 3 bytes in UTF-8 (a surrogate pair, two units, takes 4). */
const MAX_UTF8_BYTES_PER_UNIT = 3;

/** Cuts text to at most `capBytes` of UTF-8 without splitting a character. */
export function capUtf8(text: string, capBytes: number): { text: string; truncated: boolean } {
  // Nearly every body is far under the cap: its length in units proves it without measuring its
  // UTF-8 (about 1 us a KB for text with any non-ASCII character, which the writer measures anyway).
  if (text.length * MAX_UTF8_BYTES_PER_UNIT <= capBytes) return { text, truncated: false };
  if (Buffer.byteLength(text, 'utf8') <= capBytes) return { text, truncated: false };
  const bytes = Buffer.from(text, 'utf8');
  let end = capBytes;
  // Step back over continuation bytes (10xxxxxx) to the start of the cut character.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  return { text: bytes.subarray(0, end).toString('utf8'), truncated: true };
}

function maskedCapped(text: string | null, capBytes: number, secrets: string[]): { text: string | null; truncated: boolean } {
  if (text === null) return { text: null, truncated: false };
  // Mask first: a cut made before masking could leave part of a secret that no longer matches.
  return capUtf8(redactSecrets(text, secrets), capBytes);
}

function maskedHeaders(headers: Record<string, string>, secrets: string[]): Record<string, string> {
  const picked = pickAllowedHeaders(headers);
  const names = Object.keys(picked);
  // Headers rarely hold a secret: one check over them all before masking each.
  if (redactsNone([...names, ...Object.values(picked)], secrets)) return picked;
  const masked: Record<string, string> = {};
  const nameSecrets = headerNameSecrets(secrets);
  for (const name of names) {
    // A name that holds a secret is dropped: an allowed prefix (`x-ratelimit-`) does not make the rest of it safe.
    if (redactSecrets(name, nameSecrets) === name) masked[name] = redactSecrets(picked[name] ?? '', secrets);
  }
  return masked;
}

function headerValue(headers: Record<string, string>, wanted: string): string | undefined {
  const name = Object.keys(headers).find((candidate) => candidate.toLowerCase() === wanted);
  return name === undefined ? undefined : headers[name];
}

/** A request's captured bodies as stored text (decodeBody): decoded once for its record and its summary. */
export interface BodyTexts {
  request: string | null;
  response: string | null;
}

/** One captured body as stored text (decodeBody), read with the type and length its own headers give. */
export function capturedBodyText(body: Buffer | null, headers: Record<string, string>, truncated: boolean): string | null {
  return decodeBody(body, headerValue(headers, 'content-type'), { declared: headerValue(headers, 'content-length'), truncated });
}

export function bodyTextsOf(bodies: CapturedBodies): BodyTexts {
  return {
    request: capturedBodyText(bodies.requestBody, bodies.requestHeaders, bodies.requestBodyTruncated),
    response: capturedBodyText(bodies.responseBody, bodies.responseHeaders, bodies.responseBodyTruncated),
  };
}

/**
 * What the log stores for one request's bodies: allowlisted headers, bodies capped at
 * `capBytes` each and masked (known secrets and anything that looks like a key). For streams the
 * captured response body is the raw event text.
 */
export function buildBodiesRecord(
  bodies: CapturedBodies,
  stream: boolean,
  capBytes: number,
  secrets: string[],
  texts: BodyTexts = bodyTextsOf(bodies),
): RequestBodiesRecord {
  const request = maskedCapped(texts.request, capBytes, secrets);
  const response = maskedCapped(texts.response, capBytes, secrets);
  const streamText = maskedCapped(bodies.streamText, capBytes, secrets);
  return {
    requestHeaders: maskedHeaders(bodies.requestHeaders, secrets),
    responseHeaders: maskedHeaders(bodies.responseHeaders, secrets),
    requestBody: request.text,
    requestTruncated: bodies.requestBodyTruncated || request.truncated,
    responseBody: stream ? null : response.text,
    responseTruncated: bodies.responseBodyTruncated || response.truncated || streamText.truncated,
    streamText: streamText.text,
    rawEvents: stream ? response.text : null,
    rawEventOffsetsMs: stream && bodies.eventOffsetsMs ? Array.from(bodies.eventOffsetsMs) : null,
  };
}
