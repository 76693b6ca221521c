import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DIALECTS as GATEWAY_DIALECTS, type DialectName } from '../../simulator/index.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';

let harness: Harness;
/** Every named gateway dialect (simulator/dialects.ts): the SDKs must work through Airlock to each. */
const DIALECTS = Object.keys(GATEWAY_DIALECTS) as DialectName[];

beforeAll(async () => {
  harness = await startHarness({ profile: { modelRoutes: [{ pattern: 'claude-*', target: 'deepseek-chat' }] } });
});
afterAll(async () => {
  await harness.close();
});
beforeEach(() => harness.simulator.reset());

const authStyles = [
  ['x-api-key', () => new Anthropic({ baseURL: harness.proxy.url, apiKey: 'alk_client', maxRetries: 0 })],
  ['Bearer', () => new Anthropic({ baseURL: harness.proxy.url, authToken: 'alk_client', apiKey: null, maxRetries: 0 })],
] as const;

describe.each(DIALECTS)('the official Anthropic SDK against a Chat-Completions-only %s gateway', (dialect) => {
  beforeAll(() => harness.simulator.useDialect(dialect));

  it.each(authStyles)('gets a translated non-streaming message (%s auth)', async (_style, makeClient) => {
    const ended = harness.nextEnd();
    const message = await makeClient().messages.create({
      model: 'claude-sonnet-4-5-20250929',
      max_tokens: 64,
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'Say hello' }],
    });
    expect(message.type).toBe('message');
    expect(message.model).toBe('claude-sonnet-4-5-20250929');
    expect(message.content[0]?.type).toBe('text');
    expect(message.usage.output_tokens).toBeGreaterThan(0);
    const sent = JSON.parse(harness.simulator.received[0]!.body.toString('utf8')) as { model: string; messages: { role: string }[] };
    expect(harness.simulator.received[0]!.path).toBe('/v1/chat/completions');
    expect(sent.model).toBe('deepseek-chat');
    expect(sent.messages[0]!.role).toBe('system');
    // The SDK's anthropic-version and anthropic-beta mean nothing to a Chat Completions gateway.
    expect(Object.keys(harness.simulator.received[0]!.headers).filter((name) => name.startsWith('anthropic-'))).toEqual([]);
    const end = await ended;
    const start = harness.events.find((event) => event.type === 'start' && event.requestId === end.requestId);
    expect(start).toMatchObject({
      protocol: 'anthropic',
      protocolMode: 'translate',
      clientPath: '/v1/messages',
      upstreamPath: 'chat/completions',
    });
    expect(end.usage?.outputTokens).toBe(message.usage.output_tokens);
    expect(end.status).toBe(200);
  });

  it.each(authStyles)('streams text deltas in the Anthropic event sequence (%s auth)', async (_style, makeClient) => {
    const stream = makeClient().messages.stream({
      model: 'claude-haiku-4-5',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Tell me something' }],
    });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    const final = await stream.finalMessage();
    expect(types[0]).toBe('message_start');
    expect(types).toContain('content_block_delta');
    expect(types.at(-1)).toBe('message_stop');
    expect(final.stop_reason).toBe('end_turn');
    expect(final.content.map((block) => (block.type === 'text' ? block.text : '')).join('')).not.toBe('');
  });

  // A gateway that names the stop string that matched (vLLM's stop_reason) lets the client be told
  // which one, as Anthropic does; elsewhere chat's finish_reason `stop` cannot tell it from the model's own end.
  it.each([false, true])('ends at a stop sequence, named where the gateway names it (stream: %s)', async (stream) => {
    harness.simulator.script({ kind: 'reply', content: 'alpha###beta' });
    const client = authStyles[0][1]();
    const request = {
      model: 'claude-haiku-4-5',
      max_tokens: 64,
      stop_sequences: ['###'],
      messages: [{ role: 'user' as const, content: 'Go' }],
    };
    const message = stream ? await client.messages.stream(request).finalMessage() : await client.messages.create(request);
    const sent = JSON.parse(harness.simulator.received[0]!.body.toString('utf8')) as { stop?: unknown };
    expect(sent.stop).toEqual(['###']);
    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: 'alpha' })]);
    const named = GATEWAY_DIALECTS[dialect].namesMatchedStop;
    expect([message.stop_reason, message.stop_sequence]).toEqual(named ? ['stop_sequence', '###'] : ['end_turn', null]);
  });

  it('streams a tool call and takes its result back on the next turn', async () => {
    harness.simulator.script({ kind: 'reply', toolCalls: [{ name: 'get_weather', arguments: '{"city":"Zürich","unit":"°C"}' }] });
    const client = authStyles[0][1]();
    const tools = [
      { name: 'get_weather', description: 'weather', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } } },
    ];
    const first = await client.messages
      .stream({ model: 'claude-sonnet-4-5', max_tokens: 64, tools, messages: [{ role: 'user', content: 'Weather?' }] })
      .finalMessage();
    expect(first.stop_reason).toBe('tool_use');
    const toolUse = first.content.find((block) => block.type === 'tool_use');
    expect(toolUse && toolUse.type === 'tool_use' ? toolUse.input : null).toEqual({ city: 'Zürich', unit: '°C' });
    const second = await client.messages.create({
      model: 'claude-sonnet-4-5',
      max_tokens: 64,
      tools,
      messages: [
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse!.id, content: '21 degrees' }] },
      ],
    });
    expect(second.content[0]?.type).toBe('text');
    const sent = JSON.parse(harness.simulator.received[1]!.body.toString('utf8')) as {
      messages: { role: string; tool_call_id?: string; tool_calls?: { id: string }[]; content?: unknown }[];
    };
    // The result answers the call as the gateway named it (Gemini's signature rides in the client's id: thoughtSignatures.test.ts).
    const calledId = sent.messages.find((message) => message.role === 'assistant')?.tool_calls?.[0]?.id;
    expect(calledId).toMatch(/^call_/);
    expect(toolUse!.id.startsWith(calledId ?? '-')).toBe(true);
    const toolMessage = sent.messages.find((message) => message.role === 'tool');
    expect(toolMessage?.tool_call_id).toBe(calledId);
    expect(toolMessage?.content).toBe('21 degrees');
  });

  it('answers count_tokens locally', async () => {
    const count = await authStyles[0][1]().messages.countTokens({
      model: 'claude-sonnet-4-5',
      messages: [{ role: 'user', content: 'How many tokens is this?' }],
    });
    expect(count.input_tokens).toBeGreaterThan(3);
    expect(harness.simulator.received).toHaveLength(0);
  });
});

// Retries with backoff take seconds: run once, against the seed's gateway.
describe('errors from the official Anthropic SDK against a Chat-Completions-only gateway', () => {
  beforeAll(() => harness.simulator.useDialect('seed'));

  it("returns errors in Anthropic's shape, with 529 for an overloaded gateway", async () => {
    harness.simulator.script(...Array.from({ length: 4 }, () => ({ kind: 'status' as const, status: 503 })));
    const error = await authStyles[0][1]().messages
      .create({ model: 'claude-sonnet-4-5', max_tokens: 8, messages: [{ role: 'user', content: 'x' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as InstanceType<typeof Anthropic.APIError>).status).toBe(529);
    expect(((error as InstanceType<typeof Anthropic.APIError>).error as { type: string }).type).toBe('error');
  }, 20_000);
});
