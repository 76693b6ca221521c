import type { Duplex } from 'node:stream';
import type { LocalRefusal } from '../contracts/ports.ts';

/** The limit that ran out while the client was still sending its body. */
export type StallLimit = { kind: 'total'; totalTimeoutMs: number } | { kind: 'request'; requestTimeoutMs: number };

/** The proxy server's requestTimeout ended a body still arriving: how much of it had come. */
export class UploadTimedOutError extends Error {
  override readonly name = 'UploadTimedOutError';
  readonly arrivedBytes: number;
  /** The client's Content-Length; null for a chunked body. */
  readonly declaredBytes: number | null;
  readonly requestTimeoutMs: number;
  constructor(arrivedBytes: number, declaredBytes: number | null, requestTimeoutMs: number) {
    super(`the request body did not arrive within the request timeout (${requestTimeoutMs} ms)`);
    this.arrivedBytes = arrivedBytes;
    this.declaredBytes = declaredBytes;
    this.requestTimeoutMs = requestTimeoutMs;
  }

  /** The 408 it is answered with; `sentOn` as uploadStalled's. */
  refusal(sentOn: boolean): LocalRefusal {
    return uploadStalled(this.arrivedBytes, this.declaredBytes, { kind: 'request', requestTimeoutMs: this.requestTimeoutMs }, sentOn);
  }
}

/**
 * The 408 for a client still uploading when a limit ran out. `sentOn`: Airlock had begun passing
 * the body to the gateway, which was stopped before its end; either way the gateway ran nothing.
 */
export function uploadStalled(arrivedBytes: number, declaredBytes: number | null, limit: StallLimit, sentOn: boolean): LocalRefusal {
  const of =
    declaredBytes === null
      ? `${arrivedBytes} bytes of its body (of undeclared size)`
      : `${arrivedBytes} of its ${declaredBytes} declared bytes`;
  const which =
    limit.kind === 'total'
      ? `the profile's total timeout (${limit.totalTimeoutMs} ms) ran out`
      : `Airlock's request timeout (${limit.requestTimeoutMs} ms from the request's start, for receiving the whole request) ran out`;
  const gateway = sentOn
    ? 'Airlock had begun sending the body on, and the gateway was stopped before its end, so it did not run the request.'
    : 'Nothing was sent to the gateway.';
  return {
    status: 408,
    errorClass: 'upload_stalled',
    message: `the client had sent ${of} when ${which}: its upload stalled or was too slow. ${gateway}`,
  };
}

/** Each socket whose request body is being read, with what ends that read when the request times out. */
const bodyReads = new WeakMap<Duplex, (requestTimeoutMs: number) => void>();

/**
 * While a body is read: `onTimeout` ends the read when the server's requestTimeout runs out. Returns
 * the unregistering. A request with no socket (a stand-in, not from a server) has no such timeout.
 */
export function watchRequestTimeout(socket: Duplex | null | undefined, onTimeout: (requestTimeoutMs: number) => void): () => void {
  if (socket === null || socket === undefined) return () => {};
  bodyReads.set(socket, onTimeout);
  return () => {
    if (bodyReads.get(socket) === onTimeout) bodyReads.delete(socket);
  };
}

/** Hands a request timeout to the read of the socket's body; false when none is reading it. */
export function requestTimedOut(socket: Duplex, requestTimeoutMs: number): boolean {
  const onTimeout = bodyReads.get(socket);
  if (onTimeout === undefined) return false;
  bodyReads.delete(socket);
  onTimeout(requestTimeoutMs);
  return true;
}
