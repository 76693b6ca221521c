import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
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
 * The whole body, read before anything is sent on (a proxy that must see all of a request first),
 * kept as the chunks it came in: one 10 MB copy cost 12 ms, mostly faulting its fresh pages in.
 */
async function wholeBody(request: Readable): Promise<Buffer[]> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return chunks;
}

/**
 * The tuned floor for a Node proxy: node:http in, undici out, as Airlock is built. One keep-alive
 * Pool with no connection cap, the request body handed to undici as the client's stream, and the
 * answer written by undici's `stream` API straight into the client's response (no Readable per
 * answer, no copy). Nothing is inspected. `readBodyFirst`: the same, but the body is read whole
 * before it is sent, as any proxy must that decides from all of a request (Airlock reads it for
 * aliases, budgets and retries): the least store-and-forward costs beside piping.
 */
export function createUndiciFloorProxy(upstreamUrl: string, options: { readBodyFirst?: boolean } = {}): Server {
  const pool = new Pool(upstreamUrl, { connections: null, pipelining: 1, keepAliveTimeout: 60_000 });
  const forward = (clientRequest: IncomingMessage, clientResponse: ServerResponse, body: Readable): void => {
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
          body,
          signal: abort.signal,
        },
        ({ statusCode, headers }) => {
          clientResponse.writeHead(statusCode, endToEnd(headers));
          clientResponse.flushHeaders();
          return clientResponse;
        },
      )
      .catch(() => clientResponse.destroy());
  };
  const readFirst = (clientRequest: IncomingMessage, clientResponse: ServerResponse): void => {
    wholeBody(clientRequest).then(
      (chunks) => forward(clientRequest, clientResponse, Readable.from(chunks, { objectMode: false })),
      () => clientResponse.destroy(),
    );
  };
  const pipe = (clientRequest: IncomingMessage, clientResponse: ServerResponse): void =>
    forward(clientRequest, clientResponse, clientRequest);
  return createServer({ noDelay: true }, options.readBodyFirst ? readFirst : pipe);
}
