import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SEED_DIALECT } from '../../simulator/index.ts';
import type { Dialect, UsagePlacement } from '../../simulator/dialect.ts';
import { chatBody, JSON_HEADERS, rawRequest, sseData } from '../../support/http.ts';
import { startTranslatingHarness, type Harness } from '../../support/proxyHarness.ts';

/**
 * Completeness is the protocol's to decide: a chat stream is whole at `[DONE]`, or when it ends
 * cleanly after every choice's finish_reason and the usage asked for. Gateways that never send
 * `[DONE]` must work; a cut stream must never look whole.
 */
function dialect(sendDone: boolean, usagePlacement: UsagePlacement): Dialect {
  return { ...SEED_DIALECT, name: `done-${sendDone}-${usagePlacement}`, stream: { ...SEED_DIALECT.stream, sendDone, usagePlacement } };
}

let harness: Harness;

beforeAll(async () => {
  harness = await startTranslatingHarness();
});
afterAll(async () => {
  await harness.close();
});
beforeEach(() => {
  harness.simulator.reset();
  harness.simulator.useDialect(SEED_DIALECT);
});

async function streamed(path: string, body: string): Promise<{ data: string[]; end: Awaited<ReturnType<Harness['nextEnd']>> }> {
  const ended = harness.nextEnd();
  const response = await rawRequest(`${harness.proxy.url}${path}`, { method: 'POST', headers: JSON_HEADERS, body });
  return { data: sseData(response.body), end: await ended };
}

const PLACEMENTS: UsagePlacement[] = ['afterFinish', 'inFinish', 'beforeFinish', 'everyChunk'];

describe.each(PLACEMENTS)('a chat stream without [DONE], usage %s', (placement) => {
  beforeEach(() => harness.simulator.useDialect(dialect(false, placement)));

  it('is whole: every chunk passed on, no error added, the final usage reported', async () => {
    const { data, end } = await streamed('/v1/chat/completions', chatBody({ stream: true }));
    expect(data).not.toContain('[DONE]');
    expect(data.some((payload) => payload.includes('"error"'))).toBe(false);
    expect(data.some((payload) => payload.includes('"finish_reason":"stop"'))).toBe(true);
    expect(end).toMatchObject({ status: 200, errorClass: null, usageSource: 'reported' });
    expect(harness.simulator.received).toHaveLength(1);
  });

  it('is still interrupted when cut before its finish chunk', async () => {
    harness.simulator.script({ kind: 'cutAfter', chunks: 2 });
    const { data, end } = await streamed('/v1/chat/completions', chatBody({ stream: true }));
    expect(JSON.parse(data.at(-1)!)).toMatchObject({ error: { type: 'stream_interrupted' } });
    expect(end.errorClass).toBe('stream_interrupted');
  });
});

describe('translated streams from a gateway without [DONE]', () => {
  beforeEach(() => harness.simulator.useDialect(dialect(false, 'afterFinish')));

  it('an Anthropic client gets message_stop, and the request is a success', async () => {
    const body = JSON.stringify({ model: 'claude-haiku-4-5', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'hi' }] });
    const { data, end } = await streamed('/v1/messages', body);
    const types = data.map((payload) => (JSON.parse(payload) as { type: string }).type);
    expect(types.at(-1)).toBe('message_stop');
    expect(types).not.toContain('error');
    expect(end).toMatchObject({ errorClass: null, usageSource: 'reported' });
  });

  it('a Responses client gets response.completed, and the request is a success', async () => {
    const { data, end } = await streamed('/v1/responses', JSON.stringify({ model: 'gpt-5-codex', input: 'hi', stream: true }));
    const types = data.map((payload) => (JSON.parse(payload) as { type: string }).type);
    expect(types.at(-1)).toBe('response.completed');
    expect(end).toMatchObject({ errorClass: null, usageSource: 'reported' });
  });
});

// Ollama (ollama#4357), sglang (sglang#3912) and Sensenova (axonhub#2073) send finish_reason "" on every unfinished chunk.
describe('a translated stream whose chunks carry finish_reason "" and no real finish before [DONE]', () => {
  const frames = [
    'data: {"id":"c1","object":"chat.completion.chunk","model":"gpt-4o-mini","choices":[{"index":0,"delta":{"role":"assistant","content":"hi"},"finish_reason":""}]}\n\n',
    'data: {"id":"c1","object":"chat.completion.chunk","model":"gpt-4o-mini","choices":[{"index":0,"delta":{"content":" the"},"finish_reason":""}]}\n\n',
    'data: [DONE]\n\n',
  ];

  it('an Anthropic client gets an error event, not message_stop, and the request is interrupted', async () => {
    harness.simulator.script({ kind: 'bodyChunks', chunks: frames });
    const body = JSON.stringify({ model: 'claude-haiku-4-5', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'hi' }] });
    const { data, end } = await streamed('/v1/messages', body);
    const types = data.map((payload) => (JSON.parse(payload) as { type: string }).type);
    expect(types).not.toContain('message_stop');
    expect(types.at(-1)).toBe('error');
    expect(end.errorClass).toBe('stream_interrupted');
  });

  it('a Responses client gets response.failed, and the request is interrupted', async () => {
    harness.simulator.script({ kind: 'bodyChunks', chunks: frames });
    const { data, end } = await streamed('/v1/responses', JSON.stringify({ model: 'gpt-5-codex', input: 'hi', stream: true }));
    const types = data.map((payload) => (JSON.parse(payload) as { type: string }).type);
    expect(types).not.toContain('response.completed');
    expect(types.at(-1)).toBe('response.failed');
    expect(end.errorClass).toBe('stream_interrupted');
  });
});

describe('a stream whose usage is a running count on every chunk', () => {
  it.each([true, false])('cut halfway (sendDone %s) is estimated, never billed at the partial count', async (sendDone) => {
    harness.simulator.useDialect(dialect(sendDone, 'everyChunk'));
    harness.simulator.script({ kind: 'cutAfter', chunks: 2 });
    const { end } = await streamed('/v1/chat/completions', chatBody({ stream: true }));
    expect(end).toMatchObject({ errorClass: 'stream_interrupted', usageSource: 'estimated' });
  });
});

describe('a stream that ends after its finish chunk without [DONE] or the usage asked for', () => {
  const frames = [
    'data: {"id":"c1","object":"chat.completion.chunk","model":"gpt-4o-mini","choices":[{"index":0,"delta":{"role":"assistant","content":"hi"},"finish_reason":null}]}\n\n',
    'data: {"id":"c1","object":"chat.completion.chunk","model":"gpt-4o-mini","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n',
  ];
  const padding = 'x'.repeat(1024 * 1024);
  const withOptions = (options: unknown, content: string) =>
    JSON.stringify({ model: 'gpt-4o-mini', stream: true, stream_options: options, messages: [{ role: 'user', content }] });

  // A body of 1 MiB is only scanned, never parsed, on the forwarding loop: both must read the client's own include_usage.
  it.each([
    ['a small body', ''],
    ['a 1 MiB body', padding],
  ])('is interrupted when the client asked for usage itself, in %s', async (_label, content) => {
    harness.simulator.script({ kind: 'bodyChunks', chunks: frames });
    const { end } = await streamed('/v1/chat/completions', withOptions({ include_usage: true }, content));
    expect(harness.simulator.received[0]!.body.toString('utf8')).toContain('"stream_options":{"include_usage":true}');
    expect(end.errorClass).toBe('stream_interrupted');
  });

  // The text is all there and its finish came: the row must say what made it incomplete, or it reads as Airlock's mistake.
  it.each([
    ['the client', '/v1/chat/completions', withOptions({ include_usage: true }, '')],
    [
      'Airlock, for a Messages client',
      '/v1/messages',
      JSON.stringify({ model: 'claude-haiku-4-5', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    ],
  ])('names the usage chunk the gateway left out, asked for by %s', async (_asker, path, body) => {
    harness.simulator.script({ kind: 'bodyChunks', chunks: frames });
    const { end } = await streamed(path, body);
    expect(end.errorClass).toBe('stream_interrupted');
    expect(end.errorMessage).toMatch(
      /ended the stream cleanly .*without the usage chunk it was asked for \(stream_options\.include_usage\) or \[DONE\]/,
    );
  });

  it('is whole when usage was not asked for: stream_options too large to read on the forwarding loop are left as they are', async () => {
    harness.simulator.script({ kind: 'bodyChunks', chunks: frames });
    const { end } = await streamed('/v1/chat/completions', withOptions({ include_usage: false, note: 'n'.repeat(5000) }, padding));
    expect(harness.simulator.received[0]!.body.toString('utf8')).toContain('"include_usage":false');
    expect(end.errorClass).toBeNull();
  });
});
