import { EventEmitter } from 'node:events';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { isAuthorized, maskSecretHeaders } from './auth.ts';
import type { ReceivedRequest } from './types.ts';

const EMPTY_BODY = Buffer.alloc(0);

/** Epoch milliseconds with sub-millisecond precision, comparable with Date.now() in any process. */
export function nowEpochMs(): number {
  return performance.timeOrigin + performance.now();
}

/** Keeps what reached the simulator, with keys masked, and when each request's socket closed. */
export class RequestRecorder {
  readonly received: ReceivedRequest[] = [];
  readonly #validKeys: readonly string[];
  readonly #closed = new EventEmitter();
  /** Entries still waiting for their socket to close; dropped once stamped. */
  readonly #openBySocket = new WeakMap<Socket, ReceivedRequest[]>();

  constructor(validKeys: readonly string[]) {
    this.#validKeys = validKeys;
    this.#closed.setMaxListeners(0);
  }

  /** Called once per connection so one close listener serves every request it carries. */
  trackSocket(socket: Socket): void {
    socket.once('close', () => {
      const entries = this.#openBySocket.get(socket);
      if (entries === undefined) return;
      const closedAtMs = nowEpochMs();
      for (const entry of entries) entry.closedAtMs = closedAtMs;
      this.#openBySocket.delete(socket);
      this.#closed.emit('close');
    });
  }

  record(request: IncomingMessage): ReceivedRequest {
    const entry: ReceivedRequest = {
      method: request.method ?? 'GET',
      path: request.url ?? '/',
      headers: maskSecretHeaders(request.headers),
      authOk: isAuthorized(request.headers.authorization, this.#validKeys),
      body: EMPTY_BODY,
      receivedAtMs: nowEpochMs(),
      closedAtMs: null,
    };
    this.received.push(entry);
    const socket = request.socket;
    const open = this.#openBySocket.get(socket);
    if (open === undefined) this.#openBySocket.set(socket, [entry]);
    else open.push(entry);
    return entry;
  }

  waitForClose(index: number, timeoutMs: number): Promise<number> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const closedAtMs = this.received[index]?.closedAtMs;
        if (closedAtMs === null || closedAtMs === undefined) return false;
        clearTimeout(timer);
        this.#closed.off('close', check);
        resolve(closedAtMs);
        return true;
      };
      const timer = setTimeout(() => {
        this.#closed.off('close', check);
        reject(new Error(`request #${index} was not closed within ${timeoutMs} ms`));
      }, timeoutMs);
      if (!check()) this.#closed.on('close', check);
    });
  }

  clear(): void {
    this.received.length = 0;
  }
}
