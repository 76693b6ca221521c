import { once } from 'node:events';
import { createServer, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { SENTINEL_KEY } from '../support/sentinel.ts';
import { dialectOf } from './dialects.ts';
import { errorPage } from './errorPages.ts';
import { dispatch, type SimulatorState } from './dispatch.ts';
import { FaultQueue } from './faults.ts';
import { KeyRequestLimits } from './keyLimits.ts';
import { DEFAULT_MODEL_IDS } from './models.ts';
import { RequestRecorder } from './recorder.ts';
import { TaskStore } from './tasks.ts';
import type { GatewaySimulator, SimulatorOptions } from './types.ts';

export const DEFAULT_STREAM_CHUNK_COUNT = 4;
const HOST = '127.0.0.1';

/** nginx's answer to a body over client_max_body_size: sent before the body is read, then the connection closes. */
function refuseTooLarge(response: ServerResponse): void {
  const page = errorPage('nginx', 413, '');
  response.writeHead(413, {
    ...page.headers,
    'content-type': 'text/html',
    'content-length': Buffer.byteLength(page.html),
    connection: 'close',
  });
  response.end(page.html);
}

export async function startGatewaySimulator(options: SimulatorOptions = {}): Promise<GatewaySimulator> {
  const validKeys = options.validKeys ?? [SENTINEL_KEY];
  const modelIds = options.models ?? DEFAULT_MODEL_IDS;
  const recorder = new RequestRecorder(validKeys);
  const faults = new FaultQueue();
  let sequenceNumber = 0;
  const state: SimulatorState = {
    recorder,
    faults,
    modelIds,
    recordBodies: options.recordBodies ?? true,
    chat: {
      limits: { knownModels: new Set(modelIds), maxContextChars: options.maxContextChars ?? Number.POSITIVE_INFINITY },
      streamChunkCount: options.streamChunkCount ?? DEFAULT_STREAM_CHUNK_COUNT,
      streamChunkIntervalMs: options.streamChunkIntervalMs ?? 0,
    },
    nextSequence: () => {
      sequenceNumber += 1;
      return `sim${String(sequenceNumber).padStart(6, '0')}`;
    },
    dialect: dialectOf(options.dialect),
    account: { capabilities: options.modelCapabilities ?? {}, closedModels: new Set(options.closedModels ?? []) },
    tasks: new TaskStore(),
    native: { protocols: new Set(options.nativeProtocols ?? []), holdOpenAfterEnd: options.holdNativeStreamsOpen ?? false },
    keyLimits: new KeyRequestLimits(options.keyRequestLimits, options.keyRetryAfterS),
    bodyStartWatchers: [],
  };

  const sockets = new Set<Socket>();
  const handle: RequestListener = (request, response) => {
    if (Number(request.headers['content-length'] ?? 0) > (options.maxRequestBytes ?? Number.POSITIVE_INFINITY)) {
      refuseTooLarge(response);
      return;
    }
    dispatch(request, response, state).catch(() => response.destroy());
  };
  // Nagle off so each SSE write leaves at once, as a gateway that streams properly would.
  const server: Server = options.tls ? createTlsServer({ ...options.tls, noDelay: true }, handle) : createServer({ noDelay: true }, handle);
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    // Registered first so openSockets() is already current when waitForClose resolves.
    socket.once('close', () => sockets.delete(socket));
    if (!options.tls) recorder.trackSocket(socket);
  });
  // Over TLS a request's socket is the TLS socket, not the connection's TCP socket.
  if (options.tls) server.on('secureConnection', (socket: Socket) => recorder.trackSocket(socket));

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, HOST, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const url = `${options.tls ? 'https' : 'http'}://${HOST}:${port}`;

  return {
    url,
    baseUrl: `${url}/v1`,
    port,
    received: recorder.received,
    script: (...scripted) => faults.push(scripted),
    holdNext: (path) => {
      let arrived = (): void => undefined;
      let release = (): void => undefined;
      const held = { arrived: new Promise<void>((resolve) => (arrived = resolve)), release: () => release() };
      faults.push([{ kind: 'hold', path, arrived, released: new Promise<void>((resolve) => (release = resolve)) }]);
      return held;
    },
    nextBodyStart: (path) =>
      new Promise<number>((resolve) => {
        const watcher = (seenPath: string, bytes: number): void => {
          if (!seenPath.includes(path)) return;
          state.bodyStartWatchers.splice(state.bodyStartWatchers.indexOf(watcher), 1);
          resolve(bytes);
        };
        state.bodyStartWatchers.push(watcher);
      }),
    waitForClose: (index, timeoutMs) => recorder.waitForClose(index, timeoutMs),
    openSockets: () => sockets.size,
    useDialect: (dialect) => {
      state.dialect = dialectOf(dialect);
    },
    tasks: () => state.tasks.list(),
    setKeyRequestLimits: (limits, retryAfterS) => state.keyLimits.set(limits, retryAfterS),
    reset: () => {
      recorder.clear();
      faults.clear();
      state.tasks.clear();
    },
    close: async () => {
      const serverClosed = new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
      // Resolve only once every socket is gone, so closedAtMs is stamped for every request by then.
      const socketsClosed = [...sockets].map((socket) => once(socket, 'close'));
      for (const socket of sockets) socket.destroy();
      await Promise.all([serverClosed, ...socketsClosed]);
    },
  };
}
