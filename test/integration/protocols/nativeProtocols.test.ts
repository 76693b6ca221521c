import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { NATIVE_ENCRYPTED_REASONING, NATIVE_THINKING_SIGNATURE } from '../../simulator/native.ts';

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

/**
 * A session translated until the capability probe found the gateway speaks the protocol: the
 * client hands back the thinking Airlock marked, which no native gateway can verify.
 */
describe('a native request carrying thinking Airlock made under translation', () => {
  // Past the size parsed on the forwarding loop (PARSE_ON_LOOP_MAX_BYTES): read on the translation thread.
  const padding = 'x'.repeat(600 * 1024);
  const toolUse = { type: 'tool_use', id: 'toolu_1', name: 'ls', input: {} };

  it.each([
    ['a light body', ''],
    ['a heavy body', padding],
  ])('Messages, %s: the marked and unsigned thinking blocks are left out, a signed one goes as it came', async (_label, pad) => {
    const signed = { type: 'thinking', thinking: 'real', signature: NATIVE_THINKING_SIGNATURE };
    const messages = [
      { role: 'user', content: `list${pad}` },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'look', signature: 'airlock:reasoning_content' }, toolUse] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'a.txt' }] },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'old', signature: '' }] },
      { role: 'user', content: 'and?' },
      { role: 'assistant', content: [signed, { type: 'text', text: 'done' }] },
      { role: 'user', content: 'thanks' },
    ];
    const ended = harness.nextEnd();
    const body = JSON.stringify({ model: PRICE.model, max_tokens: 16, messages });
    const response = await rawRequest(`${harness.proxy.url}/v1/messages`, { method: 'POST', headers: JSON_HEADERS, body });
    expect(response.status).toBe(200);
    const sent = JSON.parse(harness.simulator.received.at(-1)!.body.toString('utf8')) as { messages: { content: unknown }[] };
    expect(sent.messages.map((message) => message.content)).toEqual([
      `list${pad}`,
      [toolUse],
      [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'a.txt' }],
      'and?',
      [signed, { type: 'text', text: 'done' }],
      'thanks',
    ]);
    const { requestId } = await ended;
    const start = harness.events.find((event) => event.type === 'start' && event.requestId === requestId);
    expect(start).toMatchObject({ protocolMode: 'native', notes: ['dropped 2 thinking blocks Airlock made under translation'] });
  });

  it.each([
    ['a light body', ''],
    ['a heavy body', padding],
  ])('Responses, %s: the marked reasoning items are left out, an encrypted one goes as it came', async (_label, pad) => {
    const genuine = { type: 'reasoning', summary: [], encrypted_content: NATIVE_ENCRYPTED_REASONING };
    const input = [
      { role: 'user', content: `list${pad}` },
      { type: 'reasoning', summary: [{ type: 'summary_text', text: 'look' }], encrypted_content: 'airlock:reasoning_content' },
      { type: 'function_call', call_id: 'call_1', name: 'ls', arguments: '{}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'a.txt' },
      { type: 'reasoning', summary: [{ type: 'summary_text', text: 'hm' }], encrypted_content: 'airlock:reasoning' },
      genuine,
      { role: 'user', content: 'thanks' },
    ];
    const ended = harness.nextEnd();
    const body = JSON.stringify({ model: PRICE.model, input, store: false });
    const response = await rawRequest(`${harness.proxy.url}/v1/responses`, { method: 'POST', headers: JSON_HEADERS, body });
    expect(response.status).toBe(200);
    const sent = JSON.parse(harness.simulator.received.at(-1)!.body.toString('utf8')) as { input: unknown[] };
    expect(sent.input).toEqual([input[0], input[2], input[3], genuine, input[6]]);
    const { requestId } = await ended;
    const start = harness.events.find((event) => event.type === 'start' && event.requestId === requestId);
    expect(start).toMatchObject({ protocolMode: 'native', notes: ['dropped 2 reasoning items Airlock made under translation'] });
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
