import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatBody, JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';

/**
 * A gateway error (a 502, say) whose body never ends: Airlock reads an error's body before it
 * answers, and a break in that read (its client gone, the idle timeout) is still an outcome to
 * log and answer, never Airlock's own "failed unexpectedly".
 */
const PIECE = Buffer.alloc(64 * 1024, 'x');
/** Far past the sockets' buffers: once the gateway wrote this much, Airlock is reading the body. */
const READ_PROOF_BYTES = 8 * 1024 * 1024;

let gateway: Server;
let harness: Harness;
/** The gateway's side of the current request: its socket's close is the upstream aborted. */
let upstreamRequest: IncomingMessage | null = null;
let onBodyBeingRead: () => void = () => undefined;

beforeAll(async () => {
  gateway = createServer((req, res) => {
    upstreamRequest = req;
    res.writeHead(502, { 'content-type': 'application/json' });
    res.write('{"error":{"message":"bad gateway');
    // `?stall`: nothing more after the start; otherwise an error body that never ends.
    if (req.url?.includes('stall') === true) return;
    let written = 0;
    const pump = (): void => {
      while (!res.destroyed) {
        written += PIECE.length;
        if (written > READ_PROOF_BYTES) onBodyBeingRead();
        if (!res.write(PIECE)) return void res.once('drain', pump);
      }
    };
    pump();
  });
  await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
  const { port } = gateway.address() as AddressInfo;
  harness = await startHarness({
    profile: { baseUrl: `http://127.0.0.1:${port}/v1`, retry: { maxRetries: 0, maxRetryAfterMs: 0 }, timeouts: { idleTimeoutMs: 1_000 } },
  });
});

afterAll(async () => {
  await harness.close();
  gateway.closeAllConnections();
  await new Promise((resolve) => gateway.close(resolve));
});

describe('a gateway error whose body is still coming', () => {
  it('whose client leaves: the upstream is aborted and the row says client_aborted', async () => {
    const ended = harness.nextEnd();
    const bodyBeingRead = new Promise<void>((resolve) => {
      onBodyBeingRead = resolve;
    });
    const client = request(`${harness.proxy.url}/v1/chat/completions`, { method: 'POST', headers: JSON_HEADERS });
    client.on('error', () => undefined);
    client.end(chatBody());
    await bodyBeingRead;
    const upstreamClosed = new Promise((resolve) => upstreamRequest?.socket.once('close', resolve));
    client.destroy();
    await upstreamClosed;
    expect(await ended).toMatchObject({ status: 499, errorClass: 'client_aborted' });
  });

  it('that stalls past the idle timeout: the client gets the gateway failure, not an internal error', async () => {
    const ended = harness.nextEnd();
    const response = await rawRequest(`${harness.proxy.url}/v1/chat/completions?stall`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: chatBody(),
    });
    expect(response.body).not.toMatch(/failed unexpectedly/);
    expect(response.status).toBe(502);
    expect(await ended).toMatchObject({ status: 502, errorClass: 'upstream_error' });
  });
});
