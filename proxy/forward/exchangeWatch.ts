import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ForwardShutdown } from './shutdown.ts';

/** Why our own AbortController fired: the client left, the total time ran out, or the proxy is stopping. */
export type AbortReason = 'client_aborted' | 'timeout_total' | 'proxy_stopping';

export interface ExchangeWatch {
  readonly signal: AbortSignal;
  /** The reason, once aborted. */
  reason(): AbortReason | null;
  abort(reason: AbortReason): void;
  /** Time left before the total timeout ends the exchange. */
  msLeft(): number;
  /** Removes every listener and the timer; call once the exchange is over. */
  dispose(): void;
}

export interface WatchInput {
  req: IncomingMessage;
  res: ServerResponse;
  totalTimeoutMs: number;
  shutdown?: ForwardShutdown;
  /** True while the exchange must run on without its client (a keyed creation that may have run). */
  runsOnWithoutClient: () => boolean;
}

/** What ends one exchange early: its client leaving, its total time, or the proxy stopping. */
export function watchExchange(input: WatchInput): ExchangeWatch {
  const { req, res } = input;
  const controller = new AbortController();
  const abort = (reason: AbortReason): void => {
    if (!controller.signal.aborted) controller.abort(reason);
  };
  const onClientClose = (): void => {
    if (!res.writableFinished && !input.runsOnWithoutClient()) abort('client_aborted');
  };
  res.on('close', onClientClose);
  // HTTP/1.1 clients never half-close while waiting for an answer: a FIN means the client left, and
  // acting on it at once (rather than at the next failed write) stops the upstream spending now.
  const socket = req.socket;
  const onClientEnd = (): void => {
    if (!input.runsOnWithoutClient()) abort('client_aborted');
  };
  // A socket ends once, and dispose takes the listener off: `on` spares once's wrapper.
  socket.on('end', onClientEnd);
  // A client that left while the request waited (for a token count, say) has no 'close' to come.
  if (res.closed) abort('client_aborted');
  const onStop = (): void => abort('proxy_stopping');
  input.shutdown?.watch(onStop);
  const deadlineMs = performance.now() + input.totalTimeoutMs;
  const totalTimer = setTimeout(() => abort('timeout_total'), input.totalTimeoutMs);
  return {
    signal: controller.signal,
    reason: () => (controller.signal.aborted ? (controller.signal.reason as AbortReason) : null),
    abort,
    msLeft: () => deadlineMs - performance.now(),
    dispose() {
      clearTimeout(totalTimer);
      res.off('close', onClientClose);
      socket.off('end', onClientEnd);
      input.shutdown?.unwatch(onStop);
    },
  };
}
