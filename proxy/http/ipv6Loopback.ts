import type { Server as HttpServer } from 'node:http';
import { createServer as createNetServer, type Server as NetServer } from 'node:net';
import { type KeptListener, keepListening, type ListenerFaults } from './listenerFaults.ts';

/**
 * Listens on [::1] at the port the proxy has on 127.0.0.1 and hands each connection to the proxy's
 * server, which treats it as one of its own (timeouts, keep-alive, stop). `localhost` resolves to
 * ::1 first where the hosts file names both (Windows, macOS, most Linux distributions), and a tool
 * the user pointed at http://localhost:<port> tries ::1 first. On Linux and macOS the refusal there
 * is immediate; on Windows a refused connection takes about 2 s (Windows retries the SYN after the
 * reset), paid by every new connection of a client that tries addresses one by one: Python's
 * `socket.create_connection` (python/cpython#106130), .NET's HttpClient (dotnet/runtime#65375);
 * curl waits for its happy-eyeballs delay (curl/curl#14144). And any other program on [::1] at the
 * port got those requests. Nothing listens here when ::1 cannot be had (IPv6 off, the port taken
 * there): clients then fall back to 127.0.0.1 as before, so this is no reason to refuse to start.
 * But a port taken there is said (`takenByAnother`): that program still gets what localhost clients
 * send, client tokens included. Once listening, a failure is met as on 127.0.0.1 (listenerFaults.ts).
 */
export function listenOnIpv6Loopback(
  server: HttpServer,
  port: number,
  faults: ListenerFaults,
  relistenDelayMs?: number,
): Promise<Ipv6Loopback> {
  const listener = createNetServer({ noDelay: true }, (socket) => server.emit('connection', socket));
  return new Promise((resolve) => {
    const onError = (error: NodeJS.ErrnoException): void =>
      resolve({ listener: null, kept: null, takenByAnother: error.code === 'EADDRINUSE' });
    listener.once('error', onError);
    listener.listen(port, '::1', () => {
      listener.off('error', onError);
      resolve({
        listener,
        kept: keepListening(listener, { port, host: '::1', name: `[::1]:${port}` }, faults, relistenDelayMs),
        takenByAnother: false,
      });
    });
  });
}

export interface Ipv6Loopback {
  /** Null where ::1 could not be had. */
  listener: NetServer | null;
  /** What keeps it listening after a failure; null with the listener. */
  kept: KeptListener | null;
  /** Another program holds [::1] at the port; IPv6 being off is no such case. */
  takenByAnother: boolean;
}
