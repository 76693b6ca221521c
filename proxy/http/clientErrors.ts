import type { ServerResponse } from 'node:http';
import { STATUS_CODES } from '../core/nodeHttp.ts';
import type { Duplex } from 'node:stream';
import { refusalBody } from './refusals.ts';
import { requestTimedOut } from '../forward/uploadStall.ts';

/** The code of the error Node's server raises when a request is not whole within its requestTimeout. */
const REQUEST_TIMEOUT_CODE = 'ERR_HTTP_REQUEST_TIMEOUT';

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
