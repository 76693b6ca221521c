import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './freePort.ts';

/**
 * A real HTTP proxy, Debian's tinyproxy (the `tinyproxy-bin` package, which .ci/run installs), as a
 * company network puts one between a laptop and the internet: Airlock must reach gateways through
 * it, and its refusals are its own words and statuses, not ours.
 */
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

export async function startTinyproxy(options: TinyproxyOptions = {}): Promise<Tinyproxy> {
  const dir = mkdtempSync(path.join(tmpdir(), 'airlock-tinyproxy-'));
  const port = await freePort();
  const config = [
    `Port ${port}`,
    'Listen 127.0.0.1',
    'Allow 127.0.0.1',
    'Timeout 60',
    // Info: its start line and one line per request, which the tests read.
    'LogLevel Info',
    ...(options.basicAuth ? [`BasicAuth ${options.basicAuth.user} ${options.basicAuth.password}`] : []),
    ...(options.connectPorts ?? []).map((allowed) => `ConnectPort ${allowed}`),
  ];
  const configFile = path.join(dir, 'tinyproxy.conf');
  writeFileSync(configFile, `${config.join('\n')}\n`);
  // -d: in the foreground, logging to its standard output.
  const child = spawn('tinyproxy', ['-d', '-c', configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
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
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
