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
}

/**
 * Whether the gateway may have run (and charged) a request: the one place that decides it. A task
 * the gateway may have executed, without our knowing, is never sent again (docs/gateway-spec.md §7,
 * rule 3). Two cases certainly did not run: an attempt that never reached a connected socket (the
 * connection failed or timed out, or the attempt was given up first), and one the gateway refused
 * with a 4xx (bad request, key, rate limit: the gateway acts on none of them). Anything else may have run whatever
 * broke after, since the gateway acts on what it received, not on what we saw of its answer.
 * Retries ask it of each attempt; a repeated idempotency key asks it of the whole request.
 */
export function mayHaveExecuted(attempt: UpstreamAttempt): boolean {
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
