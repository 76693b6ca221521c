import { once } from 'node:events';
import { get } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_STREAM_CHUNK_COUNT, startGatewaySimulator, type GatewaySimulator } from '../../simulator/index.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';
import { contentOf, parsedChunks, sseData } from './sse.ts';

const HEADERS = { authorization: `Bearer ${SENTINEL_KEY}`, 'content-type': 'application/json' };
const hello = { model: 'deepseek-chat', messages: [{ role: 'user', content: 'Say hello' }] };
const tools = [{ type: 'function', function: { name: 'read_file', parameters: { type: 'object' } } }];

let simulator: GatewaySimulator;

beforeAll(async () => {
  simulator = await startGatewaySimulator();
});
afterAll(() => simulator.close());
beforeEach(() => simulator.reset());

function chat(body: object, signal?: AbortSignal): Promise<Response> {
  return fetch(`${simulator.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
}

/** Reads a body to its end or its break, keeping what arrived before a break. */
async function readToEnd(response: Response): Promise<{ text: string; broken: boolean }> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { text, broken: false };
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    return { text, broken: true };
  }
}

async function waitForRequests(target: GatewaySimulator, count: number): Promise<void> {
  await expect.poll(() => target.received.length).toBeGreaterThanOrEqual(count);
}

describe('status faults', () => {
  it.each<[number, number | undefined, string]>([
    [429, 3, 'rate_limit_exceeded'],
    [429, undefined, 'rate_limit_exceeded'],
    [500, undefined, 'internal_error'],
    [502, undefined, 'bad_gateway'],
    [503, undefined, 'service_unavailable'],
    [504, undefined, 'gateway_timeout'],
  ])('%i (Retry-After %s) answers JSON once, then the next request is normal', async (status, retryAfterS, code) => {
    simulator.script({ kind: 'status', status, ...(retryAfterS === undefined ? {} : { retryAfterS }) });
    const faulted = await chat(hello);
    expect(faulted.status).toBe(status);
    expect(faulted.headers.get('retry-after')).toBe(retryAfterS === undefined ? null : String(retryAfterS));
    expect(await faulted.json()).toMatchObject({ error: { code } });
    expect((await chat(hello)).status).toBe(200);
  });

  it('sends a scripted body and only on the matching path', async () => {
    simulator.script({ kind: 'status', status: 400, path: '/chat/completions', body: { error: { message: 'custom', code: 'x' } } });
    expect((await fetch(`${simulator.baseUrl}/models`, { headers: HEADERS })).status).toBe(200);
    const faulted = await chat(hello);
    expect(faulted.status).toBe(400);
    expect(await faulted.json()).toEqual({ error: { message: 'custom', code: 'x' } });
  });
});

describe('shape faults', () => {
  it('answers HTML with 200 by default', async () => {
    simulator.script({ kind: 'html' });
    const response = await fetch(`${simulator.baseUrl}/models`, { headers: HEADERS });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await response.text()).toMatch(/^<!DOCTYPE html>/);
  });

  it('delays the headers, then answers normally', async () => {
    const delayMs = 120;
    simulator.script({ kind: 'delayHeaders', ms: delayMs });
    const response = await chat(hello);
    const headersAtMs = performance.timeOrigin + performance.now();
    expect(response.status).toBe(200);
    expect(headersAtMs - (simulator.received[0]?.receivedAtMs ?? Number.NaN)).toBeGreaterThanOrEqual(delayMs - 2);
  });

  it('spaces stream chunks apart', async () => {
    const intervalMs = 30;
    simulator.script({ kind: 'slowChunks', intervalMs });
    const response = await chat({ ...hello, stream: true });
    const { text } = await readToEnd(response);
    const endedAtMs = performance.timeOrigin + performance.now();
    expect(contentOf(parsedChunks(text))).toHaveLength(DEFAULT_STREAM_CHUNK_COUNT);
    expect(endedAtMs - (simulator.received[0]?.receivedAtMs ?? Number.NaN)).toBeGreaterThanOrEqual(
      DEFAULT_STREAM_CHUNK_COUNT * intervalMs - 2,
    );
  });

  it.each([0, 1, 3])('cuts a stream after %i content chunks', async (chunks) => {
    simulator.script({ kind: 'cutAfter', chunks });
    const { text, broken } = await readToEnd(await chat({ ...hello, stream: true }));
    expect(broken).toBe(true);
    const parsed = parsedChunks(text);
    expect(contentOf(parsed)).toHaveLength(chunks);
    expect(parsed.some((chunk) => chunk.choices?.[0]?.finish_reason)).toBe(false);
    expect(sseData(text)).not.toContain('[DONE]');
  });

  it('cuts a non-streaming reply halfway through its JSON', async () => {
    simulator.script({ kind: 'cutAfter', chunks: 1 });
    const { text, broken } = await readToEnd(await chat(hello));
    expect(broken).toBe(true);
    expect(() => JSON.parse(text)).toThrow();
  });

  it('ends a stream cleanly without [DONE]', async () => {
    simulator.script({ kind: 'noDone' });
    const { text, broken } = await readToEnd(await chat({ ...hello, stream: true }));
    expect(broken).toBe(false);
    expect(parsedChunks(text).at(-1)?.choices?.[0]?.finish_reason).toBe('stop');
    expect(sseData(text)).not.toContain('[DONE]');
  });

  it('puts an error event inside a 200 stream, then ends', async () => {
    simulator.script({ kind: 'errorEvent', afterChunks: 2 });
    const response = await chat({ ...hello, stream: true });
    expect(response.status).toBe(200);
    const { text, broken } = await readToEnd(response);
    expect(broken).toBe(false);
    const parsed = parsedChunks(text);
    expect(contentOf(parsed)).toHaveLength(2);
    expect(parsed.at(-1)?.error).toMatchObject({ code: 'upstream_error' });
    expect(sseData(text)).not.toContain('[DONE]');
  });

  it('writes raw body chunks exactly as scripted', async () => {
    const chunks = ['data: {"choices":[{"delta":{"content":"a"}}]}\n', '\ndata: {"choi', 'ces":[]}\n\ndata: [DONE]\n\n'];
    simulator.script({ kind: 'bodyChunks', chunks, intervalMs: 5 });
    const response = await chat({ ...hello, stream: true });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(await response.text()).toBe(chunks.join(''));
  });
});

describe('hang and client aborts', () => {
  it('never answers a hung request; waitForClose sees the client abort', async () => {
    simulator.script({ kind: 'hang' });
    const controller = new AbortController();
    const pending = chat(hello, controller.signal).catch((error: unknown) => error);
    await waitForRequests(simulator, 1);
    expect(simulator.received[0]?.closedAtMs).toBeNull();
    controller.abort();
    expect(await pending).toBeInstanceOf(Error);
    const closedAtMs = await simulator.waitForClose(0, 2000);
    expect(closedAtMs).toBeGreaterThanOrEqual(simulator.received[0]?.receivedAtMs ?? Number.POSITIVE_INFINITY);
  });

  it('notices a client that aborts mid-stream', async () => {
    simulator.script({ kind: 'slowChunks', intervalMs: 1000 });
    const controller = new AbortController();
    const response = await chat({ ...hello, stream: true }, controller.signal);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toContain('"role":"assistant"');
    expect(simulator.received[0]?.closedAtMs).toBeNull();
    controller.abort();
    expect(await simulator.waitForClose(0, 2000)).toBeGreaterThan(simulator.received[0]?.receivedAtMs ?? Number.POSITIVE_INFINITY);
  });

  it('counts open sockets', async () => {
    // A raw socket: fetch's pool may open or keep connections of its own.
    const isolated = await startGatewaySimulator();
    try {
      const socket = connect(isolated.port, '127.0.0.1');
      await once(socket, 'connect');
      socket.write('GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n');
      await once(socket, 'data');
      expect(isolated.openSockets()).toBe(1);
      socket.destroy();
      await isolated.waitForClose(0, 2000);
      expect(isolated.openSockets()).toBe(0);
    } finally {
      await isolated.close();
    }
  });

  it('closes even while a request hangs', async () => {
    const isolated = await startGatewaySimulator();
    isolated.script({ kind: 'hang' });
    const pending = fetch(`${isolated.baseUrl}/models`, { headers: { authorization: `Bearer ${SENTINEL_KEY}` } }).catch(
      (error: unknown) => error,
    );
    await waitForRequests(isolated, 1);
    await isolated.close();
    expect(await pending).toBeInstanceOf(Error);
    expect(isolated.received[0]?.closedAtMs).not.toBeNull();
  });

  it('rejects waitForClose when the socket stays open', async () => {
    await (await fetch(`${simulator.baseUrl}/models`, { headers: HEADERS })).text();
    await expect(simulator.waitForClose(0, 20)).rejects.toThrow(/not closed within 20 ms/);
  });
});

describe('connection faults', () => {
  it('closes the connection on a request without a byte of answer', async () => {
    simulator.script({ kind: 'closeUnanswered' });
    const socket = connect(simulator.port, '127.0.0.1');
    let answered = '';
    socket.on('data', (chunk: Buffer) => {
      answered += chunk.toString('latin1');
    });
    socket.write('GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n');
    await once(socket, 'close');
    expect(answered).toBe('');
    expect(simulator.received).toHaveLength(1);
  });

  it('sends a text body chunked with the trailer fields after it', async () => {
    simulator.script({ kind: 'text', status: 200, text: 'body', trailers: { 'x-checksum': 'abc' } });
    const { headers, text, trailers } = await new Promise<{
      headers: Record<string, unknown>;
      text: string;
      trailers: Record<string, unknown>;
    }>((resolve, reject) => {
      get(`${simulator.baseUrl}/models`, { headers: HEADERS }, (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => {
          body += chunk.toString('utf8');
        });
        response.on('end', () => resolve({ headers: response.headers, text: body, trailers: response.trailers }));
      }).on('error', reject);
    });
    expect(headers).toMatchObject({ 'transfer-encoding': 'chunked', trailer: 'x-checksum' });
    expect(text).toBe('body');
    expect(trailers).toEqual({ 'x-checksum': 'abc' });
  });
});

describe('scripted replies', () => {
  it('replies with scripted content, a rewritten model and no usage', async () => {
    simulator.script({ kind: 'reply', content: 'Fixed answer', model: 'gpt-4o-2024-08-06', usage: false });
    const body = (await (await chat(hello)).json()) as Record<string, unknown>;
    expect(body).toMatchObject({ model: 'gpt-4o-2024-08-06', choices: [{ message: { content: 'Fixed answer' } }] });
    expect(body).not.toHaveProperty('usage');
  });

  it('omits the usage chunk even when the stream asked for it', async () => {
    simulator.script({ kind: 'reply', usage: false });
    const text = await (await chat({ ...hello, stream: true, stream_options: { include_usage: true } })).text();
    expect(parsedChunks(text).some((chunk) => chunk.usage !== undefined)).toBe(false);
    expect(sseData(text).at(-1)).toBe('[DONE]');
  });

  it('returns tool calls in a non-streaming reply', async () => {
    simulator.script({ kind: 'reply', toolCalls: [{ name: 'read_file', arguments: '{"path":"README.md"}' }] });
    expect(await (await chat({ ...hello, tools })).json()).toMatchObject({
      choices: [
        {
          message: {
            content: null,
            tool_calls: [
              { id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'read_file', arguments: '{"path":"README.md"}' } },
            ],
          },
          finish_reason: 'tool_calls',
        },
      ],
    });
  });

  it('streams tool call arguments in pieces that reassemble', async () => {
    const calls = [
      { name: 'read_file', arguments: '{"path":"src/ü.ts"}' },
      { name: 'list_dir', arguments: '{"dir":"."}' },
    ];
    simulator.script({ kind: 'reply', toolCalls: calls });
    const chunks = parsedChunks(await (await chat({ ...hello, stream: true, tools })).text());
    const assembled = new Map<number, { name: string; arguments: string; pieces: number }>();
    for (const call of chunks.flatMap((chunk) => chunk.choices?.[0]?.delta.tool_calls ?? [])) {
      const entry = assembled.get(call.index) ?? { name: '', arguments: '', pieces: 0 };
      entry.name += call.function.name ?? '';
      entry.arguments += call.function.arguments;
      entry.pieces += call.function.arguments === '' ? 0 : 1;
      assembled.set(call.index, entry);
    }
    expect([...assembled.values()].map(({ name, arguments: args }) => ({ name, arguments: args }))).toEqual(calls);
    expect([...assembled.values()].every((entry) => entry.pieces > 1)).toBe(true);
    expect(chunks.find((chunk) => chunk.choices?.[0]?.finish_reason)?.choices?.[0]?.finish_reason).toBe('tool_calls');
  });
});

describe('a gateway that echoes the key', () => {
  it('hands back the key it was sent as its request id, on any route', async () => {
    simulator.script({ kind: 'echoKey' });
    const response = await fetch(`${simulator.baseUrl}/models`, { headers: HEADERS });
    expect(response.headers.get('x-request-id')).toBe(`req_${SENTINEL_KEY}`);
    expect(response.status).toBe(200);
  });

  it('repeats it in a chat reply, and streams it two or three characters at a time', async () => {
    simulator.script({ kind: 'echoKey' }, { kind: 'echoKey', deltaChars: [3] });
    const whole = (await (await chat(hello)).json()) as { choices: [{ message: { content: string } }] };
    expect(whole.choices[0].message.content).toContain(SENTINEL_KEY);
    const streamed = await chat({ ...hello, stream: true });
    expect(streamed.headers.get('x-request-id')).toBe(`req_${SENTINEL_KEY}`);
    const pieces = contentOf(parsedChunks(await streamed.text()));
    expect(pieces.join('')).toContain(SENTINEL_KEY);
    expect(pieces.slice(0, -1).every((piece) => piece.length === 3)).toBe(true);
    expect(pieces.some((piece) => SENTINEL_KEY.includes(piece))).toBe(true);
    expect(pieces.every((piece) => !piece.includes(SENTINEL_KEY.slice(0, 4)))).toBe(true);
  });

  it('echoes nothing but what it received: a request without a key gets no key back', async () => {
    simulator.script({ kind: 'echoKey' });
    const response = await fetch(`${simulator.baseUrl}/models`);
    expect(response.status).toBe(401);
    expect(response.headers.get('x-request-id')).toMatch(/^req_sim/);
  });
});
