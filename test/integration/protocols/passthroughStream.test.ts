import { createServer, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';

/**
 * A passed-through stream without an end marker Airlock reads (OpenAI's media events here) is whole
 * only at its clean end; a legacy completion is whole only at its finish or `[DONE]`, as a chat
 * stream is (legacyCompletions.test.ts). A client that leaves before the end has not had the whole answer.
 */

/** Answers with one SSE event: a transcript's that then ends (`?ends`), or a legacy completion's kept open until the test ends. */
let gateway: Server;
let harness: Harness;
const openStreams = new Set<ServerResponse>();

beforeAll(async () => {
  gateway = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    if (req.url?.endsWith('?ends')) {
      res.end('data: {"type":"transcript.text.delta","delta":"Hel"}\n\n');
      return;
    }
    res.write('data: {"id":"cmpl-1","object":"text_completion","choices":[{"index":0,"text":"Hel","finish_reason":null}]}\n\n');
    openStreams.add(res);
  });
  await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
  const { port } = gateway.address() as AddressInfo;
  harness = await startHarness({ profile: { baseUrl: `http://127.0.0.1:${port}/v1` } });
});
afterAll(async () => {
  for (const res of openStreams) res.destroy();
  await harness.close();
  await new Promise((resolve) => gateway.close(resolve));
});

/** Streams `body` from `url` and closes the connection at its first event. */
function closeAtFirstEvent(url: string, body: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: JSON_HEADERS }, (res) => {
      res.once('data', () => {
        req.destroy();
        resolve();
      });
      res.on('end', () => reject(new Error('the stream ended before its first event')));
    });
    req.on('error', () => undefined);
    req.end(body);
  });
}

describe('a passed-through stream whose client leaves before the gateway ends it', () => {
  it('is client_aborted, not a success', async () => {
    const ended = harness.nextEnd();
    await closeAtFirstEvent(
      `${harness.proxy.url}/v1/completions`,
      JSON.stringify({ model: 'gpt-3.5-turbo-instruct', prompt: 'hi', stream: true }),
    );
    expect(await ended).toMatchObject({ errorClass: 'client_aborted' });
  });
});

describe('a passed-through stream that ends cleanly', () => {
  it('is whole: relayed as sent, no error frame added', async () => {
    const ended = harness.nextEnd();
    const response = await rawRequest(`${harness.proxy.url}/v1/audio/transcriptions?ends`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: JSON.stringify({ model: 'gpt-4o-transcribe', stream: true }),
    });
    expect(response.status).toBe(200);
    expect(response.body).not.toMatch(/error/);
    expect(await ended).toMatchObject({ status: 200, errorClass: null });
  });
});
