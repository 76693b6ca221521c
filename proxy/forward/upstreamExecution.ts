/**
 * What is known about one attempt to send a request upstream. `reachedSocket` comes from undici
 * itself (its request start, on a connected socket), not from guessing at error codes.
 */
export interface UpstreamAttempt {
  /** The request was handed to a connected socket: from there it may have been written whole. */
  reachedSocket: boolean;
  /** The gateway answered; with its status when it did. */
  answered: boolean;
  status?: number;
  /** The gateway closed a reused connection unanswered as the request reached it (closedWhileIdle). */
  closedIdle?: boolean;
}

/**
 * Whether the gateway may have run (and charged) a request: the one place that decides it. A task
 * the gateway may have executed, without our knowing, is never sent again (docs/gateway-spec.md §7,
 * rule 3). Two cases certainly did not run: an attempt that never reached a connected socket (the
 * connection failed or timed out, or the attempt was given up first), and one the gateway refused
 * with a 4xx (bad request, key, rate limit: the gateway acts on none of them), and a reused
 * connection the gateway closed while idle as the request reached it (closedWhileIdle). Anything else may have run whatever
 * broke after, since the gateway acts on what it received, not on what we saw of its answer.
 * Retries ask it of each attempt; a repeated idempotency key asks it of the whole request.
 */
export function mayHaveExecuted(attempt: UpstreamAttempt): boolean {
  if (attempt.closedIdle === true) return false;
  if (attempt.answered) return attempt.status === undefined || attempt.status < 400 || attempt.status >= 500;
  return attempt.reachedSocket;
}

/**
 * What a gateway, or a proxy in front of it, answers when it gave up waiting while its provider had
 * the prompt: 504, and Cloudflare's 524 (the origin took past 100 s; BlockRunAI/blockrun-mcp#73
 * was charged for such a 524). 500, 502 and 503 say no provider ran it, and gateways bill none of
 * them (novita.ai/docs/guides/llm-billing; new-api hands back its pre-charge on a relay error).
 */
export function gaveUpWaiting(status: number | undefined): boolean {
  return status === 504 || status === 524;
}

/**
 * What a repeat of a keyed creation gets from its first: a resend, the first's answer, or a 409.
 * A first that certainly did not run may be sent again. One that may have run is answered by what
 * its client received only when that is the gateway's whole answer; cut off (a broken stream, a
 * timeout, the client gone, Airlock stopping), whether the task exists is unknown, and Airlock's
 * own failure is no answer to replay.
 */
export function firstOutcome(first: { mayHaveRun: boolean; answerComplete: boolean }): 'not_run' | 'answered' | 'unknown' {
  if (!first.mayHaveRun) return 'not_run';
  return first.answerComplete ? 'answered' : 'unknown';
}

/** How an attempt's connection ended with no answer: what undici showed of its socket. */
export interface UnansweredClose {
  /**
   * How long the socket sat idle between an earlier exchange's end on it and this request; null
   * when it carried none Airlock knows of (a fresh connection, above all).
   */
  idleBeforeMs: number | null;
  /** Bytes the gateway sent on it after this request started: none, or any part of an answer. */
  answerBytes: number;
  /** From the request's start on the socket to the failure. */
  closedAfterMs: number;
  /** The failure's code (networkFailureCode). */
  code: string | null;
}

/** A close or reset: undici's "other side closed" (a FIN) or "closed", or the OS's reset or broken pipe. */
const CLOSE_CODES = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);
/**
 * In the race the gateway's close left before the request reached it, so it comes back within a
 * round trip of the write; one that read the request, began to run it and died closes later. A
 * second covers the round trips of real networks and a busy event loop.
 */
export const IDLE_CLOSE_WINDOW_MS = 1000;
/**
 * Servers close a connection as idle after seconds of it (gunicorn 2 s, uvicorn, Node and Apache
 * 5 s), never sooner than this: a close of a connection in use a moment before is no idle close,
 * and may follow a request the gateway read (one that crashed, or drops what it will not serve).
 */
export const MIN_IDLE_BEFORE_CLOSE_MS = 1000;

/**
 * Whether a reused connection was closed by the gateway as it sat idle, just as Airlock wrote the
 * request on it: the keep-alive race (the connection idle MIN_IDLE_BEFORE_CLOSE_MS or more). Servers close idle connections sooner than Airlock's
 * keepAliveTimeout and unannounced (uvicorn after 5 s, gunicorn 2 s, Node's http server 5 s: no
 * `Keep-Alive: timeout` header). A server closes a connection as idle only while no byte of a next
 * request has reached it (uvicorn's data_received cancels its keep-alive timer first), and what
 * arrives after its close is never read: the request did not run. Such a close is sent before any
 * answer byte and comes back within a round trip; a fresh connection's close, one after part of
 * an answer, or a late one may follow a request the gateway read, and are not this. Chromium
 * resends any request on such a close of a reused connection before the response headers
 * (HttpNetworkTransaction::ShouldResendRequest), curl and Firefox too (draft-nottingham-httpbis-retry-01);
 * Go's Transport resends a POST only when none of it was written. Airlock resends once, on a
 * new connection.
 */
export function closedWhileIdle(close: UnansweredClose): boolean {
  return (
    close.idleBeforeMs !== null &&
    close.idleBeforeMs >= MIN_IDLE_BEFORE_CLOSE_MS &&
    close.answerBytes === 0 &&
    close.closedAfterMs <= IDLE_CLOSE_WINDOW_MS &&
    close.code !== null &&
    CLOSE_CODES.has(close.code)
  );
}
