import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DIALECTS, SEED_DIALECT, startGatewaySimulator, type DialectName, type GatewaySimulator } from '../../simulator/index.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';
import { parsedChunks, sseData } from './sse.ts';

const AUTH = { authorization: `Bearer ${SENTINEL_KEY}` };
const JSON_AUTH = { ...AUTH, 'content-type': 'application/json' };
const hello = { model: 'qwen-plus', messages: [{ role: 'user', content: 'Say hello' }] };

let simulator: GatewaySimulator;

beforeAll(async () => {
  simulator = await startGatewaySimulator({
    closedModels: ['glm-4.6'],
    modelCapabilities: {
      'deepseek-chat': { reasoning: true },
      'qwen-vl-max': { tools: false, stream: false },
      'gpt-4o-mini': { reasoningEffort: false },
      'claude-sonnet-4-5': { reasoningEffortLevels: ['low', 'medium', 'high'] },
    },
  });
});
afterAll(() => simulator.close());
beforeEach(() => {
  simulator.reset();
  simulator.useDialect('seed');
});

const post = (path: string, body: object, headers: Record<string, string> = JSON_AUTH): Promise<Response> =>
  fetch(`${simulator.baseUrl}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
const chat = (body: object): Promise<Response> => post('/chat/completions', body);
const commentLines = (text: string): string[] => text.split('\n').filter((line) => line.startsWith(':'));

describe('request ids', () => {
  it.each<[DialectName, string | null]>([
    ['seed', 'x-request-id'],
    ['openai', 'x-request-id'],
    ['new-api', 'x-oneapi-request-id'],
    ['litellm', 'x-litellm-call-id'],
    ['vllm', null],
    ['openrouter', 'x-generation-id'],
  ])('%s sends its id in %s', async (dialect, header) => {
    simulator.useDialect(dialect);
    const response = await chat(hello);
    await response.text();
    const idHeaders = ['x-request-id', 'x-oneapi-request-id', 'x-litellm-call-id', 'x-generation-id'].filter((name) =>
      response.headers.has(name),
    );
    expect(idHeaders).toEqual(header === null ? [] : [header]);
  });

  it('new-api quotes the same id in the error message', async () => {
    simulator.useDialect('new-api');
    const response = await chat({ ...hello, model: 'glm-4.6' });
    const id = response.headers.get('x-oneapi-request-id');
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({
      error: { message: `该令牌无权访问模型 glm-4.6 (request id: ${id})`, type: 'new_api_error', code: '' },
    });
  });
});

describe('errors in each dialect', () => {
  it.each<[DialectName, number, object]>([
    ['seed', 401, { error: { code: 'invalid_api_key' } }],
    ['new-api', 401, { error: { type: 'new_api_error', code: '' } }],
    ['litellm', 401, { error: { type: 'token_not_found_in_db', code: '401' } }],
    ['vllm', 401, { error: 'Unauthorized' }],
    ['openrouter', 401, { error: { code: 401 } }],
  ])('%s answers a wrong key with %i', async (dialect, status, body) => {
    simulator.useDialect(dialect);
    const response = await post('/chat/completions', hello, { 'content-type': 'application/json', authorization: 'Bearer sk-wrong' });
    expect(response.status).toBe(status);
    expect(await response.json()).toMatchObject(body);
  });

  it.each<[DialectName, number]>([
    ['seed', 429],
    ['openai', 429],
    ['new-api', 403],
    ['litellm', 400],
    ['openrouter', 402],
  ])('%s answers an empty balance with %i', async (dialect, status) => {
    simulator.useDialect(dialect);
    simulator.script({ kind: 'quota' });
    expect((await chat(hello)).status).toBe(status);
    expect((await chat(hello)).status).toBe(200);
  });

  it.each<[DialectName, number]>([
    ['seed', 404],
    ['new-api', 503],
    ['litellm', 400],
    ['vllm', 404],
  ])('%s answers an unknown model with %i', async (dialect, status) => {
    simulator.useDialect(dialect);
    expect((await chat({ ...hello, model: 'qwen-plsu' })).status).toBe(status);
  });

  it('renders a scripted status in the dialect but keeps the status, and sends Retry-After as a date when asked', async () => {
    simulator.useDialect('new-api');
    const retryAt = new Date(Date.UTC(2030, 0, 2, 3, 4, 5));
    simulator.script({ kind: 'status', status: 429, retryAfterDate: retryAt });
    const response = await chat(hello);
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('Wed, 02 Jan 2030 03:04:05 GMT');
    expect(await response.json()).toMatchObject({
      error: { type: 'new_api_error', message: expect.stringMatching(/^您已达到请求数限制/) },
    });
  });

  it("answers vLLM's unknown path with FastAPI's detail", async () => {
    simulator.useDialect('vllm');
    const response = await post('/responses', {});
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ detail: 'Not Found' });
  });
});

describe('pages and bodies that are not JSON', () => {
  it('answers with a Cloudflare page carrying its Ray ID in cf-ray', async () => {
    simulator.script({ kind: 'errorPage', status: 502, server: 'cloudflare' });
    const response = await chat(hello);
    const html = await response.text();
    const ray = response.headers.get('cf-ray') ?? '';
    expect(response.status).toBe(502);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(ray).toMatch(/^[0-9a-f]{16}-[A-Z]{3}$/);
    expect(html).toContain(`Ray ID: <strong>${ray.slice(0, 16)}</strong>`);
  });

  it.each([401, 403, 404, 502])('answers %i with an nginx page', async (status) => {
    simulator.script({ kind: 'errorPage', status });
    const response = await fetch(`${simulator.baseUrl}/models`, { headers: AUTH });
    expect(response.status).toBe(status);
    expect(response.headers.get('server')).toBe('nginx');
    expect(await response.text()).toMatch(new RegExp(`<title>${status} [A-Z]`));
  });

  it('answers a 200 that is not JSON', async () => {
    simulator.script({ kind: 'text', status: 200, text: 'upstream maintenance', contentType: 'application/json' });
    const response = await chat(hello);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('upstream maintenance');
  });
});

describe('streams in each dialect', () => {
  const stream = { ...hello, stream: true, stream_options: { include_usage: true } };

  it.each<[DialectName, string[]]>([
    ['seed', []],
    ['new-api', [': PING']],
    ['openrouter', [': OPENROUTER PROCESSING']],
  ])('%s sends keep-alive comments %j and ends with [DONE]', async (dialect, comments) => {
    simulator.useDialect(dialect);
    const text = await (await chat(stream)).text();
    expect([...new Set(commentLines(text))]).toEqual(comments);
    expect(sseData(text).at(-1)).toBe('[DONE]');
    expect(parsedChunks(text).at(-1)).toMatchObject({ choices: [], usage: { total_tokens: expect.any(Number) } });
  });

  it('ends without [DONE], names events and puts usage on the finish chunk where a dialect does', async () => {
    simulator.useDialect({
      ...SEED_DIALECT,
      name: 'custom',
      stream: { ...SEED_DIALECT.stream, sendDone: false, eventNames: true, usagePlacement: 'inFinish' },
    });
    const text = await (await chat(stream)).text();
    const events = text.split('\n\n').filter((event) => event !== '');
    expect(events.every((event) => event.startsWith('event: message\ndata: '))).toBe(true);
    expect(text).not.toContain('[DONE]');
    const last = JSON.parse(events.at(-1)!.split('data: ')[1]!) as { choices: Array<{ finish_reason: string }>; usage: object };
    expect(last).toMatchObject({ choices: [{ finish_reason: 'stop' }], usage: { total_tokens: expect.any(Number) } });
  });

  it('streams a reasoning model in vLLM as reasoning_content deltas and bills them', async () => {
    simulator.useDialect('vllm');
    const text = await (await chat({ ...stream, model: 'deepseek-chat' })).text();
    const deltas = parsedChunks(text).flatMap((chunk) => (chunk.choices ?? []).map((choice) => choice.delta as Record<string, string>));
    expect(deltas.map((delta) => delta.reasoning_content ?? '').join('')).toBe('Thinking about: Say hello');
    const plain = await (await chat({ ...hello, model: 'deepseek-chat' })).json();
    expect(plain).toMatchObject({
      choices: [{ message: { reasoning_content: 'Thinking about: Say hello', content: 'Simulated reply to: Say hello' } }],
    });
  });

  it('breaks a stream the way each dialect does', async () => {
    simulator.useDialect('openrouter');
    simulator.script({ kind: 'errorEvent', afterChunks: 1 });
    const openrouterText = await (await chat(stream)).text();
    expect(parsedChunks(openrouterText).at(-1)).toMatchObject({ error: { code: 502 }, choices: [{ finish_reason: 'error' }] });
    expect(openrouterText).not.toContain('[DONE]');

    simulator.useDialect('vllm');
    simulator.script({ kind: 'errorEvent', afterChunks: 1 });
    const vllmText = await (await chat(stream)).text();
    expect(sseData(vllmText).slice(-2)).toEqual([expect.stringContaining('"error":{"message"'), '[DONE]']);
  });
});

describe('per-model capabilities', () => {
  it('refuses tools, a stream or a closed model as the dialect does, and serves what the model can do', async () => {
    simulator.useDialect('new-api');
    const tools = [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }];
    const toolsReply = await chat({ ...hello, model: 'qwen-vl-max', tools });
    expect(toolsReply.status).toBe(400);
    expect(await toolsReply.json()).toMatchObject({
      error: { message: expect.stringMatching(/^qwen-vl-max does not support Function Calling \(request id: req_/) },
    });
    expect((await chat({ ...hello, model: 'qwen-vl-max', stream: true })).status).toBe(400);
    expect((await chat({ ...hello, model: 'qwen-vl-max' })).status).toBe(200);
    expect((await chat({ ...hello, model: 'glm-4.6' })).status).toBe(403);
    const listed = (await (await fetch(`${simulator.baseUrl}/models`, { headers: AUTH })).json()) as { data: Array<{ id: string }> };
    expect(listed.data.map((model) => model.id)).toContain('glm-4.6');
  });
});

describe('reasoning_effort for a model that does not take it', () => {
  it.each([
    [
      'openai',
      400,
      {
        error: {
          message: "Unsupported parameter: 'reasoning_effort' is not supported with this model.",
          param: 'reasoning_effort',
          code: 'unsupported_parameter',
        },
      },
    ],
    [
      'litellm',
      400,
      {
        error: {
          message: expect.stringMatching(/^litellm\.UnsupportedParamsError: .*\['reasoning_effort'\], for model=gpt-4o-mini/),
          code: '400',
        },
      },
    ],
    ['openrouter', 200, { choices: [{ finish_reason: 'stop' }] }],
  ] as const)('in %s is answered %i', async (dialect, status, body) => {
    simulator.useDialect(dialect);
    const reply = await chat({ ...hello, model: 'gpt-4o-mini', reasoning_effort: 'high' });
    expect(reply.status).toBe(status);
    expect(await reply.json()).toMatchObject(body);
    expect((await chat({ ...hello, model: 'deepseek-chat', reasoning_effort: 'high' })).status).toBe(200);
  });
});

it('refuses a reasoning_effort level the model does not have, naming the levels it has, and takes the others', async () => {
  simulator.useDialect('openai');
  const reply = await chat({ ...hello, model: 'claude-sonnet-4-5', reasoning_effort: 'xhigh' });
  expect(reply.status).toBe(400);
  expect(await reply.json()).toMatchObject({
    error: {
      message:
        "Unsupported value: 'reasoning_effort' does not support 'xhigh' with this model. Supported values are: 'low', 'medium', and 'high'.",
      param: 'reasoning_effort',
      code: 'unsupported_value',
    },
  });
  expect((await chat({ ...hello, model: 'claude-sonnet-4-5', reasoning_effort: 'high' })).status).toBe(200);
});

describe('asynchronous video tasks', () => {
  const create = (): Promise<Response> => post('/videos', { model: 'qwen-plus', prompt: 'a cat on a boat' });
  const poll = async (id: string): Promise<{ status: string; error: unknown }> =>
    (await fetch(`${simulator.baseUrl}/videos/${id}`, { headers: AUTH })).json() as Promise<{ status: string; error: unknown }>;

  it('answers a creation with a queued task that polling completes', async () => {
    const created = (await (await create()).json()) as { id: string; status: string; object: string };
    expect(created).toMatchObject({ object: 'video', status: 'queued' });
    expect((await poll(created.id)).status).toBe('in_progress');
    expect((await poll(created.id)).status).toBe('completed');
  });

  it('ends a failing task failed when polled', async () => {
    simulator.script({ kind: 'taskFails', message: 'blocked by the content policy' });
    const { id } = (await (await create()).json()) as { id: string };
    await poll(id);
    expect(await poll(id)).toMatchObject({ status: 'failed', error: { message: 'blocked by the content policy' } });
  });

  it('creates the task before an answer that fails, so a resend would create a second one', async () => {
    simulator.script({ kind: 'createThenFail', status: 504 }, { kind: 'createThenFail' });
    expect((await create()).status).toBe(504);
    await expect(create().then((response) => response.text())).rejects.toThrow();
    expect(simulator.tasks().map((task) => task.prompt)).toEqual(['a cat on a boat', 'a cat on a boat']);
  });

  it('checks the creation like the gateway would', async () => {
    simulator.useDialect('litellm');
    expect((await post('/videos', { model: 'nope', prompt: 'x' })).status).toBe(400);
    expect((await post('/videos', { model: 'qwen-plus' })).status).toBe(400);
    expect(simulator.tasks()).toEqual([]);
    expect(Object.keys(DIALECTS)).toEqual(['seed', 'openai', 'new-api', 'litellm', 'vllm', 'openrouter', 'deepseek', 'gemini', 'cerebras']);
  });
});

describe('a model failing after the gateway accepted the request (modelFails)', () => {
  it.each<[DialectName, boolean, number, string, string[]]>([
    ['seed', false, 502, 'application/json', []],
    ['seed', true, 502, 'application/json', []],
    ['vllm', false, 502, 'application/json', []],
    [
      'vllm',
      true,
      200,
      'text/event-stream',
      [
        '{"error":{"message":"Bad gateway: no valid response from the upstream model.","type":"server_error","param":null,"code":502}}',
        '[DONE]',
      ],
    ],
    ['openrouter', false, 200, 'application/json', []],
    [
      'openrouter',
      true,
      200,
      'text/event-stream',
      [
        '{"id":"chatcmpl-sim","object":"chat.completion.chunk","created":0,"model":"qwen-plus","error":{"code":502,"message":"Bad gateway: no valid response from the upstream model."},"choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}]}',
      ],
    ],
  ])('%s, stream %s: status %i, %s', async (dialect, stream, status, contentType, events) => {
    simulator.useDialect(dialect);
    simulator.script({ kind: 'modelFails', status: 502 });
    const response = await chat({ ...hello, stream });
    const text = await response.text();
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toContain(contentType);
    if (contentType === 'application/json') {
      expect(JSON.parse(text)).toMatchObject(DIALECT_ERROR_502[dialect] ?? {});
      return;
    }
    // The id and created time vary; everything else is the dialect's wire shape.
    const stable = (data: string) => data.replace(/"created":\d+/, '"created":0').replace(/chatcmpl-sim\d+/, 'chatcmpl-sim');
    expect(sseData(text).map(stable)).toEqual(events);
  });

  it('quotes the key it was sent when asked to, as a careless gateway does', async () => {
    simulator.useDialect('openrouter');
    simulator.script({ kind: 'modelFails', status: 401, code: 'invalid_api_key', message: 'Incorrect API key provided', quoteKey: true });
    const response = await chat(hello);
    expect(await response.json()).toEqual({ error: { code: 401, message: `Incorrect API key provided: ${SENTINEL_KEY}` } });
  });
});

/** The non-streamed error bodies, in each dialect's shape. */
const DIALECT_ERROR_502: Partial<Record<DialectName, object>> = {
  seed: { error: { type: 'server_error', code: 'bad_gateway' } },
  vllm: { error: { type: 'server_error', code: 502 } },
  openrouter: { error: { code: 502 } },
};
