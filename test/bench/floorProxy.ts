import { Agent, createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';

/** Connection-scoped headers (RFC 9110 section 7.6.1): never forwarded as they are. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'te', 'trailer']);

function endToEnd(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const kept: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) if (!HOP_BY_HOP.has(name)) kept[name] = value;
  return kept;
}

/**
 * The floor for any Node proxy on this machine: node:http in, node:http out over keep-alive
 * sockets, bodies piped both ways, nothing inspected. Airlock is compared against this.
 */
export function createFloorProxy(upstreamUrl: string): Server {
  const upstream = new URL(upstreamUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });
  return createServer({ noDelay: true }, (clientRequest, clientResponse) => {
    const upstreamRequest = request(
      {
        agent,
        host: upstream.hostname,
        port: upstream.port,
        method: clientRequest.method,
        path: clientRequest.url,
        headers: { ...endToEnd(clientRequest.headers), host: upstream.host },
      },
      (upstreamResponse) => {
        clientResponse.writeHead(upstreamResponse.statusCode ?? 502, endToEnd(upstreamResponse.headers));
        clientResponse.flushHeaders();
        upstreamResponse.pipe(clientResponse);
      },
    );
    upstreamRequest.on('error', () => clientResponse.destroy());
    clientResponse.on('close', () => {
      if (!clientResponse.writableFinished) upstreamRequest.destroy();
    });
    clientRequest.pipe(upstreamRequest);
  });
}
