import { Server as NetServer } from 'node:net';

/**
 * How long after a listener fails it is opened again, and between tries while that fails: one try a
 * second costs nothing while descriptors are short, and a tool that retries finds the port again soon.
 */
const RELISTEN_DELAY_MS = 1_000;

/** Where a listener's failure is said: once when it stops taking connections, once when it takes them again. */
export interface ListenerFaults {
  failing(message: string): void;
  recovered(message: string): void;
}

export interface KeptListener {
  /** Before the server is closed for good: no more tries, nothing more said. */
  stop(): void;
}

/** net.Server's own close: http.Server's also closes idle keep-alive connections, whose clients did nothing wrong. */
const closeListenerOnly = NetServer.prototype.close;

/**
 * Keeps a listening server listening after a failure, where without an 'error' listener the error
 * was an uncaught exception that ended the proxy and every stream in it. Node emits 'error' (syscall
 * `accept`) when libuv reports a failed accept (lib/net.js `onconnection`). On Linux and macOS, libuv
 * (1.45 and later; Node 24 has 1.52) reports none: out of descriptors (EMFILE, ENFILE) it accepts and
 * at once closes what waits, using a spare descriptor it keeps (libuv src/unix/stream.c,
 * `uv__emfile_trick`), and takes connections again when descriptors free. On Windows, a failure to
 * make the socket for the next accept (out of sockets or buffers) stops the listener and is reported
 * (libuv src/win/tcp.c, `uv__process_tcp_accept_req`): the port stays bound but nothing is accepted
 * again. So the listener is opened again at `port` after `retryMs`, and tried each `retryMs` while that
 * fails; connections already accepted go on, as closing a listener leaves them open. The failure is
 * said once, not at each error: errors that come while a try is pending change nothing.
 */
export function keepListening(
  server: NetServer,
  where: { port: number; host: string; name: string },
  faults: ListenerFaults,
  retryMs: number = RELISTEN_DELAY_MS,
): KeptListener {
  let failing = false;
  let stopped = false;
  let retry: NodeJS.Timeout | null = null;
  const relisten = (): void => {
    retry = null;
    if (stopped) return;
    if (server.listening) closeListenerOnly.call(server);
    server.listen(where.port, where.host);
  };
  server.on('error', (error: NodeJS.ErrnoException) => {
    if (stopped) return;
    if (!failing) {
      failing = true;
      faults.failing(listenerFailure(where, error));
    }
    retry ??= setTimeout(relisten, retryMs);
  });
  server.on('listening', () => {
    if (stopped || !failing) return;
    failing = false;
    faults.recovered(`Airlock takes connections on ${where.name} again.`);
  });
  return {
    stop() {
      stopped = true;
      if (retry !== null) clearTimeout(retry);
      retry = null;
    },
  };
}

/** Out of descriptors is the common cause (a program leaking sockets, a low `ulimit -n`): said so by its code. */
const OUT_OF_DESCRIPTORS = new Set(['EMFILE', 'ENFILE', 'ENOBUFS']);

function listenerFailure(where: { name: string }, error: NodeJS.ErrnoException): string {
  const cause = error.code ?? error.message;
  const why = OUT_OF_DESCRIPTORS.has(cause)
    ? 'the system is out of file descriptors or sockets (a program may be leaking connections, or the open-files limit is low)'
    : `the system refused (${cause})`;
  return `Airlock stopped taking new connections on ${where.name}: ${why}. Requests already running go on, and it listens again as soon as it can; until then new requests are refused.`;
}
