import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo, LookupFunction } from 'node:net';
import { connect, createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { request, type RequestOptions } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatBody, JSON_HEADERS, type RawResponse } from '../../support/http.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { memorySecretStore } from '../../support/memorySecretStore.ts';
import { startAirlock } from '../../../proxy/app/startAirlock.ts';

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(() => harness.close());

/** `localhost` as Windows, macOS and most Linux hosts files resolve it: ::1 first, then 127.0.0.1. */
const ipv6First: LookupFunction = (_hostname, options, callback) => {
  const addresses = [
    { address: '::1', family: 6 },
    { address: '127.0.0.1', family: 4 },
  ];
  if (options.all === true) callback(null, addresses);
  else callback(null, '::1', 6);
};

/**
 * A POST to http://localhost:<port> by a client that connects to the first address only, as a
 * client that tries addresses one by one meets ::1 first (Python's create_connection, .NET's
 * HttpClient; on Windows a refusal there costs them 2 s before 127.0.0.1 is tried).
 */
function postToLocalhost(port: number): Promise<RawResponse> {
  const options: RequestOptions = {
    host: 'localhost',
    port,
    path: '/v1/chat/completions',
    method: 'POST',
    headers: JSON_HEADERS,
    createConnection: () => connect({ host: 'localhost', port, lookup: ipv6First, autoSelectFamily: false }),
  };
  return new Promise((resolve, reject) => {
    const req = request(options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(chatBody());
  });
}

describe('a tool pointed at http://localhost:<port>, where localhost is ::1 first', () => {
  it('reaches Airlock on ::1 at once, and its request reaches the gateway once', async () => {
    harness.simulator.reset();
    const ended = harness.nextEnd();
    const response = await postToLocalhost(harness.proxy.port);
    expect(response.status, response.body).toBe(200);
    expect(await ended).toMatchObject({ status: 200, errorClass: null });
    expect(harness.simulator.received).toHaveLength(1);
    expect(harness.simulator.received[0]!.authOk).toBe(true);
  });
});

describe('the stop', () => {
  it('closes the ::1 listener with the other', async () => {
    const own = await startHarness();
    await own.proxy.stop();
    await own.simulator.close();
    const refused = await new Promise<string | undefined>((resolve) => {
      const socket = connect(own.proxy.port, '::1');
      socket.on('connect', () => {
        socket.destroy();
        resolve('connected');
      });
      socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code));
    });
    expect(refused).toBe('ECONNREFUSED');
  });
});

describe('a port another program holds on [::1]', () => {
  it('still starts on 127.0.0.1, and says that tools pointed at localhost may reach that program', async () => {
    // The other program first, on a port the OS chooses for [::1]: Airlock then asks for the same one.
    const other = createNetServer((socket) => socket.end());
    const otherPort = await new Promise<number>((resolve) => other.listen(0, '::1', () => resolve((other.address() as AddressInfo).port)));
    const dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-ipv6-taken-'));
    try {
      const airlock = await startAirlock({ dataDir, port: otherPort, env: {}, secrets: memorySecretStore(), homeDir: dataDir });
      try {
        expect(airlock.proxy.port).toBe(otherPort);
        // Before: nothing said so, and a localhost client's requests (its client token with them) went to the other program.
        const said = airlock.noticeBoard.list().find((notice) => notice.kind === 'localhost_taken');
        expect(said?.cause).toContain(`[::1]:${otherPort}`);
        expect(airlock.notices.some((line) => line.includes(`[::1]:${otherPort}`))).toBe(true);
      } finally {
        await airlock.stop();
      }
    } finally {
      other.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
