import { describe, expect, it } from 'vitest';
import { SEED_DIALECT, type Dialect, type ErrorBodyStyle } from '../../simulator/dialect.ts';
import { DIALECTS, dialectOf, type DialectName } from '../../simulator/dialects.ts';
import { invalidApiKey, invalidRequest, modelNotFound } from '../../simulator/errors.ts';
import { insufficientQuota, modelNotOpen, renderError, streamUnsupported, toolsUnsupported } from '../../simulator/gatewayErrors.ts';

const requestId = 'req_sim000042';
const parsed = (dialect: Dialect, ...args: Parameters<typeof renderError> extends [unknown, ...infer Rest] ? Rest : never) => {
  const rendered = renderError(dialect, ...args);
  return {
    status: rendered.status,
    contentType: rendered.contentType,
    body: rendered.contentType.startsWith('application/json') ? JSON.parse(rendered.text) : rendered.text,
  };
};

describe('renderError: body styles', () => {
  const canonical = invalidRequest('Bad thing.', 'invalid_request', 'messages');
  it.each<[ErrorBodyStyle, unknown]>([
    ['openai', { error: { message: 'Bad thing.', type: 'invalid_request_error', code: 'invalid_request', param: 'messages' } }],
    ['new-api', { error: { message: `Bad thing. (request id: ${requestId})`, type: 'invalid_request_error', code: 'invalid_request' } }],
    ['litellm', { error: { message: 'Bad thing.', type: 'invalid_request_error', param: 'messages', code: '400' } }],
    ['vllm', { error: { message: 'Bad thing.', type: 'invalid_request_error', param: 'messages', code: 400 } }],
    ['openrouter', { error: { code: 400, message: 'Bad thing.' } }],
    ['detail', { detail: 'Bad thing.' }],
    ['message', { message: 'Bad thing.' }],
    ['msg-code', { msg: 'Bad thing.', code: 'invalid_request' }],
    ['error-string', { error: 'Bad thing.' }],
    ['text', 'Bad thing.'],
  ])('%s', (style, body) => {
    const rendered = parsed({ ...SEED_DIALECT, errorBody: style }, canonical, { status: 400, requestId });
    expect(rendered).toMatchObject({ status: 400, body });
    expect(rendered.contentType).toMatch(style === 'text' ? /^text\/plain/ : /^application\/json/);
  });
});

describe('renderError: what each named dialect answers', () => {
  it('keeps the seed exactly as it always answered', () => {
    expect(parsed(SEED_DIALECT, modelNotFound('qwen-x'), { status: 404, subject: 'qwen-x', requestId }).body).toEqual(
      modelNotFound('qwen-x'),
    );
    expect(dialectOf(undefined)).toBe(SEED_DIALECT);
  });

  it.each<[DialectName, number, unknown]>([
    [
      'openai',
      404,
      { error: { code: 'model_not_found', param: 'model', message: 'The model `m1` does not exist or you do not have access to it.' } },
    ],
    ['new-api', 403, { error: { type: 'new_api_error', code: '', message: `该令牌无权访问模型 m1 (request id: ${requestId})` } }],
    ['litellm', 401, { error: { type: 'key_model_access_denied', param: 'model', code: '401' } }],
    ['vllm', 404, { error: { type: 'NotFoundError', code: 404, message: 'The model `m1` does not exist.' } }],
    ['seed', 403, { error: { code: 'model_not_found', message: 'The model `m1` is not open to this account.' } }],
  ])('%s: a model not open to the key is %i', (name, status, body) => {
    expect(parsed(DIALECTS[name], modelNotOpen('m1'), { status: 403, subject: 'm1', requestId })).toMatchObject({ status, body });
  });

  it.each<[DialectName, number, unknown]>([
    ['seed', 429, { error: { type: 'insufficient_quota', code: 'insufficient_quota' } }],
    ['openai', 429, { error: { type: 'insufficient_quota', code: 'insufficient_quota' } }],
    ['new-api', 403, { error: { type: 'new_api_error', code: 'insufficient_user_quota' } }],
    ['litellm', 400, { error: { type: 'budget_exceeded', code: '400' } }],
    ['openrouter', 402, { error: { code: 402, message: expect.stringMatching(/^Insufficient credits/) } }],
  ])('%s: an empty balance is %i', (name, status, body) => {
    expect(parsed(DIALECTS[name], insufficientQuota(), { status: 429, requestId })).toMatchObject({ status, body });
  });

  it.each<[DialectName, number, unknown]>([
    [
      'new-api',
      503,
      { error: { code: 'model_not_found', message: expect.stringMatching(/^No available channel for model qwen-x under group default/) } },
    ],
    [
      'litellm',
      400,
      {
        error: { type: 'None', param: 'None', code: '400', message: expect.stringContaining('Invalid model name passed in model=qwen-x') },
      },
    ],
    ['vllm', 404, { error: { type: 'NotFoundError', code: 404 } }],
  ])('%s: an unknown model is %i', (name, status, body) => {
    expect(parsed(DIALECTS[name], modelNotFound('qwen-x'), { status: 404, subject: 'qwen-x', requestId })).toMatchObject({ status, body });
  });

  it('answers a wrong key in each dialect, vLLM with its bare string', () => {
    expect(parsed(DIALECTS.vllm, invalidApiKey(), { status: 401, requestId }).body).toEqual({ error: 'Unauthorized' });
    expect(parsed(DIALECTS['new-api'], invalidApiKey(), { status: 401, requestId }).body).toEqual({
      error: { message: `无效的令牌 (request id: ${requestId})`, type: 'new_api_error', code: '' },
    });
    expect(parsed(DIALECTS.litellm, invalidApiKey(), { status: 401, requestId }).body).toMatchObject({
      error: { type: 'token_not_found_in_db', param: 'key', code: '401' },
    });
  });

  it("answers vLLM's unknown path with FastAPI's detail body", () => {
    expect(parsed(DIALECTS.vllm, invalidRequest('Unknown API path.', 'not_found'), { status: 404, requestId })).toEqual({
      status: 404,
      contentType: 'application/json',
      body: { detail: 'Not Found' },
    });
  });

  it('puts capability refusals on the wire with the codes real gateways use', () => {
    expect(parsed(SEED_DIALECT, toolsUnsupported('deepseek-reasoner'), { status: 400, requestId }).body).toEqual({
      error: {
        message: 'deepseek-reasoner does not support Function Calling',
        type: 'invalid_request_error',
        code: 'invalid_request_error',
        param: null,
      },
    });
    expect(parsed(SEED_DIALECT, streamUnsupported(), { status: 400, requestId }).body).toMatchObject({
      error: { code: 'unsupported_value', param: 'stream' },
    });
    expect(parsed(DIALECTS.vllm, toolsUnsupported('m'), { status: 400, requestId }).body).toMatchObject({
      error: { type: 'BadRequestError', message: expect.stringContaining('--enable-auto-tool-choice') },
    });
  });
});
