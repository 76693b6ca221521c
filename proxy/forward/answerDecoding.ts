import type { IncomingHttpHeaders } from 'node:http';
import { createBrotliDecompress, createGunzip, createInflate, createZstdDecompress } from 'node:zlib';
import type { Transform } from 'node:stream';
import { describesBodyBytes } from './headers.ts';

/**
 * Airlock asks every gateway for `accept-encoding: identity`: it masks the key in the answer's
 * bytes, reads usage from them and relays events as they come. Some servers compress all the same
 * (metabase/metabase#35858 answered gzip to `identity`; 18F/18f.gsa.gov#1796 ignored the header
 * outright). Such an answer is decoded as it arrives, so everything after reads plain bytes and
 * the client gets them plain: passed on compressed, a key inside it reached the client unmasked.
 */
const DECODERS: Readonly<Record<string, () => Transform>> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
  zstd: createZstdDecompress,
};

/**
 * The content coding a body's headers name, an answer's or a request's, lowercased; null when its
 * bytes are plain: no header, `identity`, or a label that names no coding. A character set named
 * in the coding's place (`content-encoding: utf-8`, as openresty sent with JSON in
 * locustio/locust#1233 and an API in encode/httpx#195) labels plain bytes: the clients read such
 * an answer as it is (fetch decodes only the codings it knows; httpx has skipped the others since
 * that issue), so it is not refused as undecodable, and a request so labelled is read as plain as
 * an answer is (it was refused with a 415). A label is a character set if TextDecoder knows it
 * (the WHATWG Encoding Standard's labels); no content coding is one.
 */
export function contentCodingOf(headers: IncomingHttpHeaders): string | null {
  return codingNamed(headers['content-encoding']);
}

function codingNamed(label: string | string[] | undefined): string | null {
  if (label === undefined) return null;
  // A repeated header line comes as an array: joined, it is a list of codings, refused as such.
  const coding = (Array.isArray(label) ? label.join(', ') : label).trim().toLowerCase();
  return coding === '' || coding === 'identity' || namesNoCoding(coding) ? null : coding;
}

/**
 * The content coding of an answer, its header read once, and the headers it is passed on with:
 * decoded, without those that described the coded bytes (decodedHeaders); plain, without a
 * `content-encoding` that named no coding, so the client is not handed a coding it might refuse.
 */
export function answerCodingOf(headers: IncomingHttpHeaders): { coding: string | null; headers: IncomingHttpHeaders } {
  const label = headers['content-encoding'];
  if (label === undefined) return { coding: null, headers };
  const coding = codingNamed(label);
  if (coding !== null) return { coding, headers: decodedHeaders(headers) };
  const plain = { ...headers };
  delete plain['content-encoding'];
  return { coding: null, headers: plain };
}

/** A character set's name, or `none` (servers misconfigured to say no coding that way; fetch and httpx read such answers plain). */
function namesNoCoding(label: string): boolean {
  if (label === 'none') return true;
  try {
    new TextDecoder(label);
    return true;
  } catch {
    return false;
  }
}

/**
 * An answer Airlock cannot decode: its coding (thrown at the headers) or its bytes (failing the
 * body). Nothing of it is checked for the key, so nothing of it is passed on. errorClass.ts
 * classes it by its name as `upstream_error`: the gateway sent it, and it may have run the request.
 */
export class AnswerDecodingError extends Error {
  override readonly name = 'AnswerDecodingError';
}

function undecodableCoding(coding: string): AnswerDecodingError {
  return new AnswerDecodingError(
    `the gateway answered compressed (content-encoding: ${coding}) although Airlock asked for an uncompressed answer, ` +
      'and Airlock cannot decode that coding; ask the gateway operator to honour "accept-encoding: identity"',
  );
}

/** A decoder for `coding` (one coding: a list of several has none); null when Airlock has none. */
export function contentDecoder(coding: string): Transform | null {
  // Own keys only: a coding named `constructor` must not reach Object's.
  return Object.hasOwn(DECODERS, coding) ? DECODERS[coding]!() : null;
}

/** A decoder for `coding` (one coding: a list of several is refused as undecodable). */
export function decoderFor(coding: string): Transform {
  const decoder = contentDecoder(coding);
  if (decoder === null) throw undecodableCoding(coding);
  return decoder;
}

/** The headers without those that described the coded bytes (coding, length, digest, ETag): the decoded body is other bytes. */
function decodedHeaders(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const decoded: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) if (!describesBodyBytes(name)) decoded[name] = value;
  return decoded;
}
