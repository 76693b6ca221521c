import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One answer as the client received it: what it asked for and the headers it got back. */
export interface TappedAnswer {
  method: string;
  path: string;
  status: number;
  headers: IncomingHttpHeaders;
}

/**
 * A pass-through between a real CLI and Airlock on 127.0.0.1 that keeps each answer's headers:
 * the CLIs print the answer but never the response headers (`x-airlock-answered-by`), so this is
 * the only place a test can see what the client was told. Bodies and streams are piped untouched.
 */
export interface HeaderTap {
  url: string;
  answers: TappedAnswer[];
  close(): Promise<void>;
}

export async function startHeaderTap(targetUrl: string): Promise<HeaderTap> {
  const target = new URL(targetUrl);
  const answers: TappedAnswer[] = [];
  const server: Server = createServer((clientRequest, clientResponse) => {
    const upstream = request(
      {
        host: target.hostname,
        port: target.port,
        method: clientRequest.method,
        path: clientRequest.url,
        headers: { ...clientRequest.headers, host: target.host },
      },
      (answer) => {
        answers.push({
          method: clientRequest.method ?? 'GET',
          path: clientRequest.url ?? '',
          status: answer.statusCode ?? 0,
          headers: answer.headers,
        });
        clientResponse.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(clientResponse);
      },
    );
    upstream.on('error', (error) => clientResponse.destroy(error));
    clientRequest.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    answers,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
