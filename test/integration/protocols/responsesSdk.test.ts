import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DIALECTS as GATEWAY_DIALECTS, type DialectName } from '../../simulator/index.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';

let harness: Harness;
/** Every named gateway dialect (simulator/dialects.ts): the SDKs must work through Airlock to each. */
const DIALECTS = Object.keys(GATEWAY_DIALECTS) as DialectName[];

beforeAll(async () => {
  harness = await startHarness({ profile: { modelAliases: { 'gpt-5-codex': 'qwen-plus' } } });
});
afterAll(async () => {
  await harness.close();
});
beforeEach(() => harness.simulator.reset());

const client = () => new OpenAI({ baseURL: `${harness.proxy.url}/v1`, apiKey: 'alk_client', maxRetries: 0 });

describe.each(DIALECTS)('the Responses API against a Chat-Completions-only %s gateway', (dialect) => {
  beforeAll(() => harness.simulator.useDialect(dialect));

  it('answers a non-streaming response', async () => {
    const response = await client().responses.create({ model: 'gpt-5-codex', instructions: 'Be brief', input: 'hello', store: false });
    expect(response.status).toBe('completed');
    expect(response.output_text.length).toBeGreaterThan(0);
    expect(response.usage?.output_tokens).toBeGreaterThan(0);
    const sent = JSON.parse(harness.simulator.received[0]!.body.toString('utf8')) as { model: string };
    expect(sent.model).toBe('qwen-plus');
  });

  it('streams the event sequence Codex expects, ending with response.completed and usage', async () => {
    const stream = await client().responses.create({ model: 'gpt-5-codex', input: 'stream please', stream: true, store: false });
    const types: string[] = [];
    let completedUsage: number | undefined;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.completed') completedUsage = event.response.usage?.output_tokens;
    }
    expect(types.slice(0, 2)).toEqual(['response.created', 'response.in_progress']);
    expect(types).toContain('response.output_text.delta');
    expect(types.at(-1)).toBe('response.completed');
    expect(completedUsage).toBeGreaterThan(0);
  });

  it('streams a function call', async () => {
    harness.simulator.script({ kind: 'reply', toolCalls: [{ name: 'shell', arguments: '{"command":["ls","-la"]}' }] });
    const stream = await client().responses.create({
      model: 'gpt-5-codex',
      input: 'list files',
      stream: true,
      tools: [{ type: 'function', name: 'shell', parameters: { type: 'object', properties: {} }, strict: false }, { type: 'web_search' }],
    });
    let args = '';
    for await (const event of stream) if (event.type === 'response.function_call_arguments.done') args = event.arguments;
    expect(JSON.parse(args)).toEqual({ command: ['ls', '-la'] });
  });

  it('ends a broken stream with response.failed, never response.completed', async () => {
    harness.simulator.script({ kind: 'cutAfter', chunks: 1 });
    const stream = await client().responses.create({ model: 'gpt-5-codex', input: 'x', stream: true });
    const types: string[] = [];
    try {
      for await (const event of stream) types.push(event.type);
    } catch {
      // The SDK may raise on the failure event; what it saw before is what matters.
    }
    expect(types).not.toContain('response.completed');
    expect(types.some((type) => type === 'response.failed' || type === 'error')).toBe(true);
  });

  it('refuses previous_response_id with a clear 400', async () => {
    const error = await client()
      .responses.create({ model: 'gpt-5-codex', input: 'x', previous_response_id: 'resp_123' })
      .catch((caught: unknown) => caught);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
    expect(String((error as Error).message)).toContain('previous_response_id');
    expect(harness.simulator.received).toHaveLength(0);
  });
});
