import { createServer, type AddressInfo } from 'node:net';

/** What the stand-in writes after each whole request it read, and how it ends the connection after (kept open if not said). */
export interface RawAnswer {
  bytes: string | Buffer;
  /** 'close': a FIN after the bytes; 'reset': an RST once they are written. */
  after?: 'close' | 'reset';
}

export interface RawGateway {
  /** The stand-in's base URL, `/v1` included. */
  baseUrl: string;
  /** Whole requests read since it started or since the last `reset`. */
  readonly requestsReceived: number;
  /** From now on each request is answered with `answer`, and the count starts again. */
  reset(answer: RawAnswer): void;
  close(): Promise<void>;
}

/**
 * A raw TCP stand-in for the gateway, for answers no HTTP server library writes (invalid HTTP, bodies
 * that break after their head): it reads each whole request (its head, then its Content-Length's
 * bytes), counts it, and writes the bytes it was given, as they are, on 127.0.0.1.
 */
export async function startRawGateway(first: RawAnswer): Promise<RawGateway> {
  let answer = first;
  let requestsReceived = 0;
  const server = createServer((socket) => {
    let received = '';
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      const headEnd = received.indexOf('\r\n\r\n');
      if (headEnd === -1) return;
      const bodyLength = Number(/\r\ncontent-length: *(\d+)/i.exec(received.slice(0, headEnd))?.[1] ?? 0);
      if (received.length < headEnd + 4 + bodyLength) return;
      received = '';
      requestsReceived += 1;
      if (answer.after === 'close') socket.end(answer.bytes);
      else if (answer.after === 'reset') socket.write(answer.bytes, () => socket.resetAndDestroy());
      else socket.write(answer.bytes);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    get requestsReceived() {
      return requestsReceived;
    },
    reset(next) {
      answer = next;
      requestsReceived = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
      }),
  };
}
