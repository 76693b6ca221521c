import OpenAI, { AzureOpenAI } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS as GATEWAY_DIALECTS, type DialectName } from '../../simulator/index.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { findSentinel, SENTINEL_KEY } from '../../support/sentinel.ts';

let harness: Harness;
/** Every named gateway dialect (simulator/dialects.ts): the SDKs must work through Airlock to each. */
const DIALECTS = Object.keys(GATEWAY_DIALECTS) as DialectName[];

beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => {
  await harness.close();
});

describe.each(DIALECTS)('the official openai SDK through Airlock to a %s gateway', (dialect) => {
  beforeAll(() => harness.simulator.useDialect(dialect));

  it.each([
    ['with /v1', (url: string) => `${url}/v1`],
    ['without /v1', (url: string) => url],
    ['with /v1/v1', (url: string) => `${url}/v1/v1`],
  ])('completes a chat with the base URL %s', async (_label, baseUrlOf) => {
    harness.simulator.reset();
    const client = new OpenAI({ baseURL: baseUrlOf(harness.proxy.url), apiKey: 'client-side-placeholder', maxRetries: 0 });
    const completion = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello there' }] });
    expect(completion.choices[0]?.message.content).toBeTruthy();
    expect(completion.usage?.prompt_tokens).toBeGreaterThan(0);
    const [received] = harness.simulator.received;
    expect(received?.path).toBe('/v1/chat/completions');
    expect(received?.authOk).toBe(true);
    expect(String(received?.headers.authorization)).not.toContain('client-side-placeholder');
  });

  it('streams chunks in order and ends with [DONE], without the usage chunk it did not ask for', async () => {
    harness.simulator.reset();
    const client = new OpenAI({ baseURL: `${harness.proxy.url}/v1`, apiKey: 'x', maxRetries: 0 });
    const ended = harness.nextEnd();
    const stream = await client.chat.completions.create({
      model: 'deepseek-chat',
      stream: true,
      messages: [{ role: 'user', content: 'tell me a story' }],
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks.every((chunk) => chunk.choices.length > 0)).toBe(true);
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('stop');
    const sentBody = JSON.parse(harness.simulator.received[0]!.body.toString('utf8')) as { stream_options?: { include_usage?: boolean } };
    expect(sentBody.stream_options?.include_usage).toBe(true);
    const end = await ended;
    expect(end.usage?.outputTokens).toBeGreaterThan(0);
    expect(end.usageSource).toBe('reported');
    expect(end.bodies.streamText).toBe(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join(''));
  });

  it('passes the usage chunk through when the client asked for it', async () => {
    harness.simulator.reset();
    const client = new OpenAI({ baseURL: `${harness.proxy.url}/v1`, apiKey: 'x', maxRetries: 0 });
    const stream = await client.chat.completions.create({
      model: 'deepseek-chat',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'count' }],
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    // The chunk the gateway put its usage in, as sent: one of its own with choices [] where the gateway sends that.
    if (GATEWAY_DIALECTS[dialect].stream.usagePlacement === 'afterFinish') expect(chunks.at(-1)?.choices).toEqual([]);
    expect(chunks.at(-1)?.usage?.completion_tokens).toBeGreaterThan(0);
  });

  it('relays the gateway keep-alive comments byte for byte', async () => {
    harness.simulator.reset();
    const response = await fetch(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'deepseek-chat', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    const comments = (await response.text()).split('\n').filter((line) => line.startsWith(':'));
    const sent = GATEWAY_DIALECTS[dialect].stream.keepAliveComment;
    expect(new Set(comments)).toEqual(new Set(sent === null ? [] : [sent]));
    if (sent !== null) expect(comments.length).toBeGreaterThan(0);
  });

  it('lists models and never lets the key reach the client or the events', async () => {
    const client = new OpenAI({ baseURL: `${harness.proxy.url}/v1`, apiKey: 'x', maxRetries: 0 });
    const models = await client.models.list();
    expect(models.data.map((model) => model.id)).toContain('gpt-4o-mini');
    expect(findSentinel(JSON.stringify(models))).toBeNull();
    expect(findSentinel(JSON.stringify(harness.events))).toBeNull();
    expect(JSON.stringify(harness.simulator.received)).not.toContain(SENTINEL_KEY);
  });
});

/**
 * A client set up for Azure OpenAI sends `{endpoint}/openai/deployments/{deployment}/chat/completions?api-version=…`
 * with its key as `api-key`, the deployment taken from its `deployment` option or else the body's model, and its
 * other calls to `{endpoint}/openai/{endpoint path}` (node_modules/openai/azure.js, buildRequest). On Azure the
 * deployment in the path decides the model. The gateway is OpenAI-compatible: Airlock sends `{base_url}/{endpoint}`.
 */
describe('an Azure OpenAI client through Airlock', () => {
  beforeAll(() => harness.simulator.useDialect('openai'));
  const API_VERSION = '2024-10-21';
  const azureClient = (deployment?: string) =>
    new AzureOpenAI({
      endpoint: harness.proxy.url,
      apiKey: 'alk_client',
      apiVersion: API_VERSION,
      maxRetries: 0,
      ...(deployment ? { deployment } : {}),
    });

  it('completes a chat on the deployment the path names, counted like any chat', async () => {
    harness.simulator.reset();
    const ended = harness.nextEnd();
    const completion = await azureClient().chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    expect(completion.choices[0]?.message.content).toBeTruthy();
    const [received] = harness.simulator.received;
    expect(received?.path).toBe(`/v1/chat/completions?api-version=${API_VERSION}`);
    expect(received?.authOk).toBe(true);
    expect(received?.headers['api-key']).toBeUndefined();
    expect((await ended).usageSource).toBe('reported');
  });

  it("sends the path's deployment as the model, as Azure runs the deployment whatever the body says", async () => {
    harness.simulator.reset();
    await azureClient('deepseek-chat').chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    const [received] = harness.simulator.received;
    expect(received?.path).toBe(`/v1/chat/completions?api-version=${API_VERSION}`);
    expect(JSON.parse(received!.body.toString('utf8')).model).toBe('deepseek-chat');
  });

  it("lists the models at the gateway's /models", async () => {
    harness.simulator.reset();
    const models = await azureClient().models.list();
    expect(models.data.map((model) => model.id)).toContain('gpt-4o-mini');
    expect(harness.simulator.received[0]?.path).toBe(`/v1/models?api-version=${API_VERSION}`);
  });
});
