import { describe, expect, it } from 'vitest';
import type { RequestLifecycleEvent } from '../../../../proxy/contracts/lifecycle.ts';
import { genAiSpanOf, operationNameOf, upstreamServerOf } from '../../../../proxy/app/export/genAiSpan.ts';
import { tracesUrlOf } from '../../../../proxy/app/export/traceExport.ts';

type Start = Extract<RequestLifecycleEvent, { type: 'start' }>;
type End = Extract<RequestLifecycleEvent, { type: 'end' }>;

const START: Start = {
  type: 'start',
  requestId: 'alk_1',
  startedAtMs: 1_700_000_000_000,
  method: 'POST',
  clientPath: '/v1/chat/completions',
  upstreamPath: '/v1/chat/completions',
  profileId: 'main',
  clientName: 'codex',
  protocol: 'openai',
  protocolMode: 'native',
  requestedModel: 'fast',
  upstreamModel: 'gpt-4o-mini',
  stream: true,
  notes: [],
};

const END: End = {
  type: 'end',
  requestId: 'alk_1',
  status: 200,
  durationMs: 1500,
  ttfbMs: 250,
  retries: 1,
  errorClass: null,
  errorMessage: null,
  errorCode: null,
  responseModel: 'gpt-4o-mini-2024-07-18',
  upstreamRequestId: 'req-1',
  usage: { inputTokens: 100, outputTokens: 20, cachedInputTokens: 64, reasoningTokens: 5 },
  usageSource: 'reported',
  costCredits: 0.01,
  bodies: {
    requestHeaders: {},
    responseHeaders: {},
    requestBody: null,
    requestBodyTruncated: false,
    responseBody: null,
    responseBodyTruncated: false,
    streamText: null,
  },
};

describe('operationNameOf', () => {
  it.each([
    ['/v1/chat/completions', 'chat'],
    ['/chat/completions', 'chat'],
    ['/v1/v1/chat/completions?x=1', 'chat'],
    ['/v1/messages', 'chat'],
    ['/v1/responses', 'chat'],
    ['/v1/completions', 'text_completion'],
    ['/v1/embeddings', 'embeddings'],
    ['/v1/messages/count_tokens', 'messages.count_tokens'],
    ['/v1/images/generations', 'images.generations'],
    ['/v1/models', 'models'],
    ['/', 'request'],
  ])('%s -> %s', (path, operation) => {
    expect(operationNameOf(path)).toBe(operation);
  });
});

describe('genAiSpanOf: the GenAI semantic conventions for one request', () => {
  it.each<[string, Partial<Start>, Partial<End>, Record<string, unknown>, string | null]>([
    [
      'a streamed chat: model sent upstream, usage, time to first chunk in seconds, the alias the client asked for',
      {},
      {},
      {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai',
        'gen_ai.request.model': 'gpt-4o-mini',
        'gen_ai.response.model': 'gpt-4o-mini-2024-07-18',
        'gen_ai.usage.input_tokens': 100,
        'gen_ai.usage.output_tokens': 20,
        'gen_ai.usage.cache_read.input_tokens': 64,
        'gen_ai.usage.reasoning.output_tokens': 5,
        'gen_ai.response.time_to_first_chunk': 0.25,
        'http.response.status_code': 200,
        'server.address': 'gateway.example',
        'server.port': 443,
        'airlock.requested_model': 'fast',
        'airlock.client': 'codex',
        'airlock.retries': 1,
        'airlock.cost_credits': 0.01,
      },
      null,
    ],
    [
      'a failure Airlock classified: error.type is the class',
      { stream: false },
      { status: 429, errorClass: 'rate_limited', usage: null, usageSource: null, costCredits: null },
      { 'error.type': 'rate_limited', 'http.response.status_code': 429 },
      'rate_limited',
    ],
    [
      'Anthropic Messages the gateway took natively: the anthropic flavour',
      { protocol: 'anthropic', protocolMode: 'native', clientPath: '/v1/messages' },
      {},
      { 'gen_ai.provider.name': 'anthropic', 'gen_ai.operation.name': 'chat', 'airlock.client_protocol': 'anthropic' },
      null,
    ],
    [
      'Anthropic Messages translated to Chat Completions: the gateway was called the OpenAI way',
      { protocol: 'anthropic', protocolMode: 'translate', clientPath: '/v1/messages' },
      {},
      { 'gen_ai.provider.name': 'openai' },
      null,
    ],
    ['an unclassified HTTP error: error.type is the status', { stream: false }, { status: 404 }, { 'error.type': '404' }, 'HTTP 404'],
    [
      "the gateway's own statement of its charge, in its own unit beside Airlock's cost",
      {},
      { usage: { ...END.usage!, gatewayCost: 0.000348 } },
      { 'airlock.gateway_cost_gateway_unit': 0.000348, 'airlock.cost_credits': 0.01 },
      null,
    ],
  ])('%s', (_name, start, end, attributes, errorDescription) => {
    const span = genAiSpanOf({ ...START, ...start }, { ...END, ...end }, { address: 'gateway.example', port: 443 });
    expect(span.attributes).toMatchObject(attributes);
    expect(span.errorDescription).toBe(errorDescription);
    expect(span.name).toBe('chat gpt-4o-mini');
    expect(span.endTimeMs - span.startTimeMs).toBe(1500);
  });

  it('leaves out what is unknown instead of sending empty values, and never sends bodies or messages', () => {
    const span = genAiSpanOf(
      { ...START, requestedModel: null, upstreamModel: null, clientName: null, stream: false, clientPath: '/v1/models', method: 'GET' },
      { ...END, responseModel: null, usage: null, usageSource: null, costCredits: null },
      null,
    );
    expect(span.name).toBe('models');
    expect(Object.keys(span.attributes).sort()).toEqual(
      [
        'airlock.client_protocol',
        'airlock.profile',
        'airlock.request_id',
        'airlock.retries',
        'gen_ai.operation.name',
        'gen_ai.provider.name',
        'http.response.status_code',
      ].sort(),
    );
    expect(span.attributes).not.toHaveProperty('error.type');
    expect(genAiSpanOf(START, END, null).attributes).not.toHaveProperty('airlock.gateway_cost_gateway_unit');
  });
});

describe('upstreamServerOf and tracesUrlOf', () => {
  it.each([
    ['https://gateway.example/v1', { address: 'gateway.example', port: 443 }],
    ['http://127.0.0.1:9000/v1', { address: '127.0.0.1', port: 9000 }],
    ['not a url', null],
  ])('upstreamServerOf(%s)', (baseUrl, server) => {
    expect(upstreamServerOf(baseUrl)).toEqual(server);
  });

  it.each([
    ['http://localhost:4318', 'http://localhost:4318/v1/traces'],
    ['http://localhost:4318/', 'http://localhost:4318/v1/traces'],
    ['https://collector.example/otlp/v1/traces', 'https://collector.example/otlp/v1/traces'],
  ])('tracesUrlOf(%s)', (endpoint, url) => {
    expect(tracesUrlOf(endpoint)).toBe(url);
  });
});
