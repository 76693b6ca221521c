import type { ServerResponse } from 'node:http';
import { STATUS_CODES } from '../core/nodeHttp.ts';
import type { Duplex } from 'node:stream';
import { refusalBody } from './refusals.ts';
import { requestTimedOut } from '../forward/uploadStall.ts';

/** The code of the error Node's server raises when a request is not whole within its requestTimeout. */
const REQUEST_TIMEOUT_CODE = 'ERR_HTTP_REQUEST_TIMEOUT';

/** The code llhttp stops with at HTTP/2's connection preface (`PRI * HTTP/2.0`): a client speaking HTTP/2 with prior knowledge. */
const HTTP2_PREFACE_CODE = 'HPE_PAUSED_H2_UPGRADE';

/** How long a connection answered with the GOAWAY may stay half-closed before it is destroyed, if its client never closes it. */
const HTTP2_LINGER_MS = 5_000;

/** The status Node answers each client error with when no 'clientError' listener exists (lib/_http_server.js, Node 24). */
const NODE_STATUS_BY_CODE: Readonly<Record<string, number>> = { HPE_HEADER_OVERFLOW: 431, HPE_CHUNK_EXTENSIONS_OVERFLOW: 413 };

/**
 * The server's 'clientError' listener. A request whose body is still being read when the server's
 * requestTimeout runs out is left to its handler, which answers why in the client's protocol (a 408
 * `upload_stalled`) on a connection then closed. Any other client error is met as Node meets it
 * without a listener: its bare answer, unless an answer has begun on the socket, then the socket destroyed.
 * A timeout with no body being read (headers never finished, say) gets the 408 as plain JSON.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex, requestTimeoutMs: number): void {
  const answer = attachedResponse(socket);
  const answerBegun = answer?.headersSent === true;
  const timedOut = error.code === REQUEST_TIMEOUT_CODE;
  if (timedOut && answer !== null && !answerBegun && requestTimedOut(socket, requestTimeoutMs)) {
    // The rest of the body will not be read: the connection cannot carry another request.
    answer.setHeader('connection', 'close');
    return;
  }
  // Only where no HTTP/1.1 request is in progress: prior knowledge sends the preface as a connection's
  // first bytes, and frames written after a pipelined request would stand where its answer belongs.
  if (error.code === HTTP2_PREFACE_CODE && answer === null) {
    // Node reports the stopped parser again for each later read (the client's own frames): one answer.
    if (socket.writableEnded) return;
    // Ended rather than destroyed, so frames the client sent meanwhile do not turn the close into a
    // reset that could discard the GOAWAY before it is read; the client closes on the GOAWAY.
    socket.end(HTTP1_REQUIRED_FRAMES);
    const linger = setTimeout(() => socket.destroy(), HTTP2_LINGER_MS).unref();
    socket.once('close', () => clearTimeout(linger));
    return;
  }
  if (socket.writable && !answerBegun) socket.write(timedOut ? requestTimeoutAnswer(requestTimeoutMs) : nodeBareAnswer(error.code));
  socket.destroy(error);
}

/**
 * The response Node has attached to the socket (its request in progress), if any. Node keeps it as
 * `_httpMessage` and checks it for the same purpose in its own handling of client errors.
 */
function attachedResponse(socket: Duplex): ServerResponse | null {
  return (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage ?? null;
}

function nodeBareAnswer(code: string | undefined): string {
  const status = (code === undefined ? undefined : NODE_STATUS_BY_CODE[code]) ?? 400;
  return `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\n\r\n`;
}

function requestTimeoutAnswer(requestTimeoutMs: number): string {
  const payload = JSON.stringify(
    refusalBody({
      status: 408,
      errorClass: 'upload_stalled',
      message: `the client did not send its whole request within Airlock's request timeout (${requestTimeoutMs} ms from the request's start): nothing was sent to the gateway.`,
    }),
  );
  return (
    'HTTP/1.1 408 Request Timeout\r\nContent-Type: application/json; charset=utf-8\r\n' +
    `Content-Length: ${Buffer.byteLength(payload)}\r\nConnection: close\r\n\r\n${payload}`
  );
}

/**
 * The answer to HTTP/2 with prior knowledge (h2c: curl --http2-prior-knowledge, a Go or Rust client
 * made to send HTTP/2 over plain TCP): the server's preface (an empty SETTINGS frame, RFC 9113
 * section 3.4), then a GOAWAY with HTTP_1_1_REQUIRED (section 7), whose debug data says why. Node's
 * bare HTTP/1.1 400 reached such a client as bytes that are no frame: curl said "Empty reply from
 * server" and others a protocol error, where this names the fix.
 */
const HTTP1_REQUIRED_FRAMES = ((): Buffer => {
  const frame = (type: number, payload: Buffer): Buffer => {
    const header = Buffer.alloc(9);
    header.writeUIntBE(payload.length, 0, 3);
    header.writeUInt8(type, 3);
    // Flags 0, stream 0: both frames are of the connection.
    return Buffer.concat([header, payload]);
  };
  const SETTINGS = 0x4;
  const GOAWAY = 0x7;
  const HTTP_1_1_REQUIRED = 0xd;
  const why = Buffer.from('Airlock answers HTTP/1.1 only: send the request over HTTP/1.1, without HTTP/2 prior knowledge.');
  const goaway = Buffer.alloc(8);
  goaway.writeUInt32BE(0, 0);
  goaway.writeUInt32BE(HTTP_1_1_REQUIRED, 4);
  return Buffer.concat([frame(SETTINGS, Buffer.alloc(0)), frame(GOAWAY, Buffer.concat([goaway, why]))]);
})();
