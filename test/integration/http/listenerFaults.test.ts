import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, createServer as createHttpServer, get as httpGet, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startAirlock } from '../../../proxy/app/startAirlock.ts';
import { listenOnIpv6Loopback } from '../../../proxy/http/ipv6Loopback.ts';
import type { ListenerFaults } from '../../../proxy/http/listenerFaults.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { type Harness, startHarness } from '../../support/proxyHarness.ts';
import { memorySecretStore } from '../../support/memorySecretStore.ts';

/** The proxy's servers, as startServer makes them: the test emits on them what Node emits on a failed accept. */
const servers = vi.hoisted(() => [] as import('node:http').Server[]);
vi.mock('../../../proxy/core/nodeHttp.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../../proxy/core/nodeHttp.ts')>();
  return {
    ...original,
    createServer: ((...args: Parameters<typeof original.createServer>) => {
      const server = original.createServer(...args);
      servers.push(server);
      return server;
    }) as typeof original.createServer,
  };
});

/**
 * What lib/net.js `onconnection` emits when libuv reports a failed accept: on Windows, out of
 * sockets, libuv stops the listener and reports it (src/win/tcp.c `uv__process_tcp_accept_req`).
 */
function acceptFailure(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`accept ${code}`), { code, errno: -24, syscall: 'accept' });
}

/** Faults said, and a promise for the next recovery. */
function watchFaults(): { faults: ListenerFaults; failures: string[]; recovered: () => Promise<string> } {
  const failures: string[] = [];
  let waiting: ((message: string) => void) | null = null;
  return {
    failures,
    faults: {
      failing: (message) => failures.push(message),
      recovered: (message) => waiting?.(message),
    },
    recovered: () =>
      new Promise((resolve) => {
        waiting = resolve;
      }),
  };
}

describe('the 127.0.0.1 listener when an accept fails', () => {
  const watched = watchFaults();
  let harness: Harness;
  beforeAll(async () => {
    servers.length = 0;
    harness = await startHarness({ listenerFaults: watched.faults, relistenDelayMs: 10 });
  });
  afterAll(() => harness.close());

  it('keeps the request in flight, says it once, and takes new connections again', async () => {
    let arrived: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    harness.simulator.script({ kind: 'hold', arrived, released });
    const inFlight = harness.postChat();
    await held;

    const server = servers[0]!;
    const recovered = watched.recovered();
    // Without an 'error' listener, emit throws: in the proxy, an uncaught exception that ended it.
    server.emit('error', acceptFailure('EMFILE'));
    server.emit('error', acceptFailure('EMFILE'));
    expect(await recovered).toContain(`127.0.0.1:${harness.proxy.port}`);
    expect(watched.failures).toHaveLength(1);
    expect(watched.failures[0]).toContain('out of file descriptors');
    expect((server.address() as AddressInfo).port).toBe(harness.proxy.port);

    const after = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, { method: 'POST', headers: JSON_HEADERS, body: chatBody() });
    expect(after.status, after.body).toBe(200);
    release();
    const { response, end } = await inFlight;
    expect(response.status, response.body).toBe(200);
    expect(end).toMatchObject({ status: 200, errorClass: null });
  });

  it("leaves an idle keep-alive connection open across the new listen: its client's next request goes on it", async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const first = await getThrough(agent, `${harness.proxy.url}/`);
      expect(first.reused).toBe(false);
      const recovered = watched.recovered();
      servers[0]!.emit('error', acceptFailure('EMFILE'));
      await recovered;
      // http.Server's close would have closed it (closeIdleConnections), and the client's pool with it.
      const second = await getThrough(agent, `${harness.proxy.url}/`);
      expect(second).toEqual({ status: first.status, reused: true });
    } finally {
      agent.destroy();
    }
  });
});

/** A GET through `agent`: its status, and whether it went on a connection the agent kept from before. */
function getThrough(agent: Agent, url: string): Promise<{ status: number; reused: boolean }> {
  return new Promise((resolve, reject) => {
    const req = httpGet(url, { agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, reused: req.reusedSocket }));
    });
    req.on('error', reject);
  });
}

describe('the [::1] listener when an accept fails', () => {
  let server: HttpServer;
  beforeAll(async () => {
    server = createHttpServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('listens there again and says it once', async () => {
    const port = (server.address() as AddressInfo).port;
    const watched = watchFaults();
    const ipv6 = await listenOnIpv6Loopback(server, port, watched.faults, 10);
    expect(ipv6.listener, '::1 is needed for this test').not.toBeNull();
    const recovered = watched.recovered();
    ipv6.listener!.emit('error', acceptFailure('ENFILE'));
    ipv6.listener!.emit('error', acceptFailure('ENFILE'));
    expect(await recovered).toContain(`[::1]:${port}`);
    expect(watched.failures).toHaveLength(1);
    const answer = await rawRequest(`http://[::1]:${port}/`, { method: 'GET' });
    expect(answer.body).toBe('ok');
    ipv6.kept!.stop();
    ipv6.listener!.close();
  });
});

describe('the desktop app and serve, when the listener fails', () => {
  it('show it once among the notices, and take it away when Airlock listens again', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-listener-fault-'));
    try {
      servers.length = 0;
      const airlock = await startAirlock({ dataDir, port: 0, env: {}, secrets: memorySecretStore(), homeDir: dataDir });
      try {
        const server = servers[0]!;
        // Not events.once: it rejects at the 'error' emitted next.
        const listening = new Promise((resolve) => server.once('listening', resolve));
        server.emit('error', acceptFailure('EMFILE'));
        server.emit('error', acceptFailure('EMFILE'));
        const said = airlock.noticeBoard.list().filter((notice) => notice.kind === 'listener_failing');
        expect(said).toHaveLength(1);
        expect(said[0]!.cause).toContain(`127.0.0.1:${airlock.proxy.port}`);
        await listening;
        expect(airlock.noticeBoard.list().some((notice) => notice.kind === 'listener_failing')).toBe(false);
      } finally {
        await airlock.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
