import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { Pool } from 'undici';

/** Connection-scoped headers (RFC 9110 section 7.6.1): never forwarded as they are. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'te', 'trailer', 'host']);

function endToEnd(headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const kept: Record<string, string | string[]> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined && !HOP_BY_HOP.has(name)) kept[name] = value;
  }
  return kept;
}

/**
 * The tuned floor for a Node proxy: node:http in, undici out, as Airlock is built. One keep-alive
 * Pool with no connection cap, the request body handed to undici as the client's stream, and the
 * answer written by undici's `stream` API straight into the client's response (no Readable per
 * answer, no copy). Nothing is inspected.
 */
export function createUndiciFloorProxy(upstreamUrl: string): Server {
  const pool = new Pool(upstreamUrl, { connections: null, pipelining: 1, keepAliveTimeout: 60_000 });
  return createServer({ noDelay: true }, (clientRequest, clientResponse) => {
    const abort = new AbortController();
    clientResponse.on('close', () => {
      if (!clientResponse.writableFinished) abort.abort();
    });
    pool
      .stream(
        {
          method: clientRequest.method as 'POST',
          path: clientRequest.url ?? '/',
          headers: endToEnd(clientRequest.headers),
          body: clientRequest,
          signal: abort.signal,
        },
        ({ statusCode, headers }) => {
          clientResponse.writeHead(statusCode, endToEnd(headers));
          clientResponse.flushHeaders();
          return clientResponse;
        },
      )
      .catch(() => clientResponse.destroy());
  });
}
