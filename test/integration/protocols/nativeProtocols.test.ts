import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';

/**
 * A full gateway that speaks Messages and Responses itself, used natively: each answer's usage is
 * read by its own protocol (the simulator reports 12 in / 4 out on every native answer), a count
 * is not billed as a request, and a client that leaves once it has the whole answer aborted nothing.
 */
const PRICE = { model: 'native-model', inputPer1M: 1000, outputPer1M: 2000 };
/** 12 × 1000 / 1M + 4 × 2000 / 1M. */
const COST_OF_REPORTED = 0.02;

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({
    simulator: { nativeProtocols: ['messages', 'responses'], holdNativeStreamsOpen: false },
    profile: { protocolModes: { messages: 'native', responses: 'native' }, prices: [PRICE] },
  });
});
afterAll(async () => {
  await harness.close();
});

const messagesBody = (stream: boolean) =>
  JSON.stringify({ model: PRICE.model, max_tokens: 16, stream, messages: [{ role: 'user', content: 'hi' }] });
const responsesBody = (stream: boolean) => JSON.stringify({ model: PRICE.model, input: 'hi', stream, store: false });

describe.each([
  ['/v1/messages', messagesBody],
  ['/v1/responses', responsesBody],
])('a native %s answer', (path, body) => {
  it.each([false, true])('streamed %s: its usage is read as reported 12 / 4 and priced', async (stream) => {
    const ended = harness.nextEnd();
    const response = await rawRequest(`${harness.proxy.url}${path}`, { method: 'POST', headers: JSON_HEADERS, body: body(stream) });
    expect(response.status).toBe(200);
    expect(harness.simulator.received.at(-1)?.path).toBe(path);
    const end = await ended;
    expect(end).toMatchObject({ errorClass: null, usage: { inputTokens: 12, outputTokens: 4 }, usageSource: 'reported' });
    expect(end.costCredits).toBeCloseTo(COST_OF_REPORTED, 10);
  });
});

describe('a native count_tokens', () => {
  it('is forwarded and answered, and not billed as a request', async () => {
    const ended = harness.nextEnd();
    const response = await rawRequest(`${harness.proxy.url}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: JSON.stringify({ model: PRICE.model, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(JSON.parse(response.body)).toEqual({ input_tokens: 12 });
    expect(harness.simulator.received.at(-1)?.path).toBe('/v1/messages/count_tokens');
    expect((await ended).costCredits).toBe(0);
  });
});

/** Streams `body` and closes the connection as soon as the text `finalEvent` arrived, as Codex does at response.completed. */
function readUntilThenClose(url: string, body: string, finalEvent: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: JSON_HEADERS }, (res) => {
      let received = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        received += chunk;
        if (received.includes(finalEvent)) {
          req.destroy();
          resolve(received);
        }
      });
      res.on('end', () => reject(new Error(`the stream ended without ${finalEvent}`)));
    });
    req.on('error', () => undefined);
    req.end(body);
  });
}

describe('a client that closes once it has the whole native stream, before the gateway ends it', () => {
  let slowEnding: Harness;
  beforeAll(async () => {
    slowEnding = await startHarness({
      simulator: { nativeProtocols: ['messages', 'responses'], holdNativeStreamsOpen: true },
      profile: { protocolModes: { messages: 'native', responses: 'native' }, prices: [PRICE] },
    });
  });
  afterAll(async () => {
    await slowEnding.close();
  });

  it.each([
    ['/v1/responses', responsesBody(true), 'event: response.completed'],
    ['/v1/messages', messagesBody(true), 'event: message_stop'],
  ])('%s is a success, not client_aborted', async (path, body, finalEvent) => {
    const ended = slowEnding.nextEnd();
    await readUntilThenClose(`${slowEnding.proxy.url}${path}`, body, finalEvent);
    expect(await ended).toMatchObject({
      status: 200,
      errorClass: null,
      usage: { inputTokens: 12, outputTokens: 4 },
      usageSource: 'reported',
    });
  });
});
