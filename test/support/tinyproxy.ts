import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './freePort.ts';

/**
 * A real HTTP proxy, Debian's tinyproxy (the `tinyproxy-bin` package, which .ci/run installs), as a
 * company network puts one between a laptop and the internet: Airlock must reach gateways through
 * it, and its refusals are its own words and statuses, not ours.
 *
 * The gateway is named GATEWAY_HOST, which only the network beyond the proxy knows (RFC 2606's .test:
 * this computer's resolver never does), as a company's DNS may resolve names only at its proxy: a
 * request that skipped the proxy fails to resolve. tinyproxy passes each tunnel to a small CONNECT
 * relay of this process's (its `Upstream`), which stands for that network: it connects the name to
 * 127.0.0.1 at the port asked for, and answers 502 where nothing listens, as a proxy does.
 */
export const GATEWAY_HOST = 'gateway.airlock.test';

export interface Tinyproxy {
  port: number;
  /** Its URL, with the user name and password when given. */
  url(credentials?: { user: string; password: string }): string;
  /** What it logged so far: a line `Request (file descriptor N): CONNECT host:port HTTP/1.1` per tunnel asked for. */
  log(): string;
  /** The host:port of each tunnel asked for, in order. */
  connects(): string[];
  stop(): Promise<void>;
}

export interface TinyproxyOptions {
  /** Basic authentication it asks for: a request without it gets 407, with a wrong password 401. */
  basicAuth?: { user: string; password: string };
  /**
   * The only ports it opens tunnels to (403 for others), as Squid's default configuration allows
   * CONNECT to port 443 alone (`http_access deny CONNECT !SSL_ports`). Any port when not given.
   */
  connectPorts?: number[];
}

const STARTED = /Accepting connections/;
const CONNECT_LINE = /Request \(file descriptor \d+\): CONNECT (\S+) HTTP/g;

/** The network beyond the proxy: GATEWAY_HOST is this computer's 127.0.0.1, every other name unknown. */
async function startNetworkBeyond(): Promise<http.Server> {
  const relay = http.createServer((_request, response) => response.writeHead(405).end());
  relay.on('connect', (request: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    const at = (request.url ?? '').lastIndexOf(':');
    const host = (request.url ?? '').slice(0, at);
    const port = Number((request.url ?? '').slice(at + 1));
    client.on('error', () => client.destroy());
    if (host !== GATEWAY_HOST) {
      client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
      return;
    }
    const upstream = net.connect(port, '127.0.0.1');
    upstream.once('connect', () => {
      client.write('HTTP/1.1 200 Connection established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => (client.writable ? client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n') : client.destroy()));
    client.on('close', () => upstream.destroy());
  });
  relay.listen(0, '127.0.0.1');
  await once(relay, 'listening');
  return relay;
}

export async function startTinyproxy(options: TinyproxyOptions = {}): Promise<Tinyproxy> {
  const dir = mkdtempSync(path.join(tmpdir(), 'airlock-tinyproxy-'));
  const beyond = await startNetworkBeyond();
  const port = await freePort();
  const config = [
    `Port ${port}`,
    'Listen 127.0.0.1',
    'Allow 127.0.0.1',
    'Timeout 60',
    // Info: its start line and one line per request, which the tests read.
    'LogLevel Info',
    `Upstream http 127.0.0.1:${(beyond.address() as AddressInfo).port}`,
    ...(options.basicAuth ? [`BasicAuth ${options.basicAuth.user} ${options.basicAuth.password}`] : []),
    ...(options.connectPorts ?? []).map((allowed) => `ConnectPort ${allowed}`),
  ];
  const configFile = path.join(dir, 'tinyproxy.conf');
  writeFileSync(configFile, `${config.join('\n')}\n`);
  // -d: in the foreground, logging to its standard output. Under util-linux's setpriv, which asks the
  // kernel to kill it when the thread that started it ends: a test worker that dies never gets to
  // stop it, and a proxy left running would hold its port for good.
  const child = spawn('setpriv', ['--pdeathsig', 'KILL', 'tinyproxy', '-d', '-c', configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const exited = once(child, 'close');
  const started = new Promise<void>((resolve, reject) => {
    const take = (chunk: Buffer): void => {
      log += chunk.toString();
      if (STARTED.test(log)) resolve();
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.once('error', reject);
    void exited.then(() => reject(new Error(`tinyproxy exited before it started: ${log}`)));
  });
  await started;
  return {
    port,
    url: (credentials) =>
      credentials
        ? `http://${encodeURIComponent(credentials.user)}:${encodeURIComponent(credentials.password)}@127.0.0.1:${port}`
        : `http://127.0.0.1:${port}`,
    log: () => log,
    connects: () => [...log.matchAll(CONNECT_LINE)].map((match) => match[1]!),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      beyond.closeAllConnections();
      beyond.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
