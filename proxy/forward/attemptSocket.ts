import { subscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
import { networkFailureCode } from '../core/errorClass.ts';
import { closedWhileIdle } from './upstreamExecution.ts';

/**
 * The socket one attempt's request went out on. undici's callbacks never name it; its
 * 'undici:client:sendHeaders' channel does, in the same turn as the attempt's onRequestStart
 * (client-h1.js writeH1 calls the one, then publishes the other, with nothing between), so the
 * attempt starting is handed over in a module variable.
 */
export class AttemptSocket {
  socket: Socket | null = null;
  /**
   * What the socket had delivered before this request: what came after is this request's answer.
   * TLS counts the decrypted bytes only, so a handshake's bytes are none of it.
   */
  bytesReadBefore = 0;
  startedAtMs = 0;
  /** How long the socket sat idle since an earlier attempt's answer ended on it; null when none is known. */
  idleBeforeMs: number | null = null;

  /** Called in onRequestStart, once undici goes on to write the request. */
  expectSocket(): void {
    starting = this;
  }

  /** The answer ended whole: from now the socket sits idle until its next request. */
  answered(): void {
    this.ended();
    if (this.socket !== null) idleSinceMs.set(this.socket, performance.now());
  }

  /** The attempt is over: a hand-over undici never made (it gave the request up first) is not left for another's socket. */
  ended(): void {
    if (starting === this) starting = null;
  }

  /** Whether the gateway closed this reused connection, idle, as the request reached it (upstreamExecution.ts). */
  closedIdle(error: unknown): boolean {
    const { socket } = this;
    if (socket === null) return false;
    return closedWhileIdle({
      idleBeforeMs: this.idleBeforeMs,
      answerBytes: socket.bytesRead - this.bytesReadBefore,
      closedAfterMs: performance.now() - this.startedAtMs,
      code: networkFailureCode(error),
    });
  }
}

let starting: AttemptSocket | null = null;
/** When each socket's last answer ended: weakly held, so a closed socket takes its entry with it. */
const idleSinceMs = new WeakMap<Socket, number>();

// A request of another undici in the process (Node's own fetch publishes here too) finds none starting.
subscribe('undici:client:sendHeaders', (message) => {
  const attempt = starting;
  starting = null;
  if (attempt === null) return;
  const { socket } = message as { socket: Socket };
  const nowMs = performance.now();
  attempt.socket = socket;
  attempt.bytesReadBefore = socket.bytesRead;
  attempt.startedAtMs = nowMs;
  const idleSince = idleSinceMs.get(socket);
  attempt.idleBeforeMs = idleSince === undefined ? null : nowMs - idleSince;
});
