import { createServer, type Server, type Socket } from 'node:net';
import { chatAnswerText } from './http.ts';

/**
 * What the server does with one request: answer it, close the connection (FIN) at once, close after
 * part of an answer, answer it once the next request arrived (so the two are on two connections),
 * or never answer nor close (a peer gone without a word: a laptop woken on another network).
 */
export type Reply = 'answer' | 'close' | 'close_after_status_line' | 'answer_with_next' | 'silence';

export interface ReadRequest {
  connection: number;
  /** 1 for a connection's first request. */
  onConnection: number;
}

export interface RaceServer {
  url: string;
  requests: ReadRequest[];
  close(): Promise<void>;
}

/**
 * A gateway that closes kept-alive connections as chosen requests reach them (the keep-alive race,
 * proxy/forward/upstreamExecution.ts closedWhileIdle): a 127.0.0.1 server speaking just enough
 * HTTP/1.1, which numbers its connections and each connection's requests.
 */
export async function startRaceServer(reply: (request: ReadRequest) => Reply): Promise<RaceServer> {
  const requests: ReadRequest[] = [];
  const sockets = new Set<Socket>();
  let connections = 0;
  let heldAnswer: (() => void) | null = null;
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    const connection = ++connections;
    let onConnection = 0;
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        const headEnd = pending.indexOf('\r\n\r\n');
        if (headEnd < 0) return;
        const length = Number(/content-length: *(\d+)/i.exec(pending.subarray(0, headEnd).toString('latin1'))?.[1] ?? 0);
        if (pending.length < headEnd + 4 + length) return;
        pending = pending.subarray(headEnd + 4 + length);
        const request = { connection, onConnection: ++onConnection };
        requests.push(request);
        const what = reply(request);
        const answer = (): void => {
          const body = chatAnswerText('hi');
          socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
        };
        const held = heldAnswer;
        heldAnswer = what === 'answer_with_next' ? answer : null;
        held?.();
        if (what === 'close') socket.end();
        else if (what === 'close_after_status_line') socket.end('HTTP/1.1 200 OK\r\n');
        else if (what === 'answer') answer();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
