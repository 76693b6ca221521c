import { AnswerDecodingError } from '../../../proxy/forward/answerDecoding.ts';
import { describe, expect, it } from 'vitest';
import { UPSTREAM_ERROR_CLASSES } from '../../../proxy/contracts/errors.ts';
import {
  classifyNetworkFailure,
  classifyUpstreamResponse,
  networkFailureCode,
  statusForClass,
  type ExchangeFailureClass,
} from '../../../proxy/core/errorClass.ts';

const JSON_TYPE = 'application/json';
const HTML_PAGE = '<!DOCTYPE html><html><body>404 Not Found</body></html>';
const jsonError = (message: string, code: string | null = null) => JSON.stringify({ error: { message, type: 'x', code } });

describe('classifyUpstreamResponse', () => {
  it.each([
    ['200 JSON success', 200, JSON_TYPE, '{"choices":[]}', true, null],
    ['200 SSE success', 200, 'text/event-stream', 'data: {"choices":[]}\n\n', true, null],
    ['200 empty body unread', 200, JSON_TYPE, '', true, null],
    ['200 HTML where JSON expected', 200, 'text/html; charset=utf-8', HTML_PAGE, true, 'html_instead_of_json'],
    ['200 HTML sniffed without a content type', 200, null, `  \n${HTML_PAGE}`, true, 'html_instead_of_json'],
    ['200 HTML sniffed behind a wrong JSON type', 200, JSON_TYPE, '<html><head></head></html>', true, 'html_instead_of_json'],
    ['200 HTML when a page was asked for', 200, 'text/html', HTML_PAGE, false, null],
    ['200 with only an error body', 200, JSON_TYPE, jsonError('upstream failed'), true, 'upstream_error'],
    ['200 with a model error body', 200, JSON_TYPE, jsonError('model gpt-x not found'), true, 'model_not_found'],
    ['200 with an invalid_api_key body', 200, JSON_TYPE, jsonError('bad', 'invalid_api_key'), true, 'auth'],
    ['200 with a LiteLLM invalid-token body', 200, JSON_TYPE, jsonError('bad token', 'token_not_found_in_db'), true, 'auth'],
    [
      '200 with an insufficient_quota body',
      200,
      JSON_TYPE,
      jsonError('You exceeded your quota', 'insufficient_quota'),
      true,
      'quota_exhausted',
    ],
    ['200 with a Chinese empty-balance body', 200, JSON_TYPE, jsonError('用户额度不足'), true, 'quota_exhausted'],
    ['200 with a rate-limit body', 200, JSON_TYPE, jsonError('slow down', 'rate_limit_exceeded'), true, 'rate_limited'],
    ['301 redirect', 301, null, '', true, 'html_instead_of_json'],
    ['400 bad params', 400, JSON_TYPE, jsonError('temperature must be <= 2'), true, 'bad_request'],
    ['400 context too long', 400, JSON_TYPE, jsonError('context_length_exceeded'), true, 'bad_request'],
    ['400 model does not exist', 400, JSON_TYPE, jsonError('The model `gpt-5x` does not exist'), true, 'model_not_found'],
    ['400 with code model_not_found', 400, JSON_TYPE, jsonError('nope', 'model_not_found'), true, 'model_not_found'],
    ['400 invalid model', 400, JSON_TYPE, jsonError('Invalid model: foo'), true, 'model_not_found'],
    ['400 Chinese no channel', 400, JSON_TYPE, jsonError('当前分组 default 下对于模型 x 无可用渠道'), true, 'model_not_found'],
    ['400 context length', 400, JSON_TYPE, jsonError("This model's maximum context length is 8192 tokens."), true, 'bad_request'],
    ['400 unsupported feature', 400, JSON_TYPE, jsonError('model x: tools are not supported; invalid parameter'), true, 'bad_request'],
    ['400 HTML page', 400, 'text/html', HTML_PAGE, true, 'html_instead_of_json'],
    ['401 JSON', 401, JSON_TYPE, jsonError('Incorrect API key', 'invalid_api_key'), true, 'auth'],
    ['401 HTML page is a rejected key', 401, 'text/html', HTML_PAGE, true, 'auth'],
    ['401 LiteLLM model not open to the key', 401, JSON_TYPE, jsonError('key not allowed to access model', '401'), true, 'model_not_found'],
    ['402 balance', 402, JSON_TYPE, jsonError('insufficient balance'), true, 'quota_exhausted'],
    [
      '402 OpenRouter credits',
      402,
      JSON_TYPE,
      JSON.stringify({ error: { code: 402, message: 'Insufficient credits.' } }),
      true,
      'quota_exhausted',
    ],
    [
      '429 OpenAI insufficient_quota',
      429,
      JSON_TYPE,
      jsonError('You exceeded your current quota', 'insufficient_quota'),
      true,
      'quota_exhausted',
    ],
    ['403 new-api insufficient_user_quota', 403, JSON_TYPE, jsonError('用户额度不足', 'insufficient_user_quota'), true, 'quota_exhausted'],
    [
      '400 LiteLLM budget_exceeded',
      400,
      JSON_TYPE,
      JSON.stringify({ error: { message: 'Budget has been exceeded!', type: 'budget_exceeded', code: '400' } }),
      true,
      'quota_exhausted',
    ],
    ['403 new-api model not open to the token', 403, JSON_TYPE, jsonError('该令牌无权访问模型 glm-4.6'), true, 'model_not_found'],
    ['403 JSON is no rejected key', 403, JSON_TYPE, jsonError('forbidden'), true, 'bad_request'],
    ['403 with an invalid-key code', 403, JSON_TYPE, jsonError('bad key', 'invalid_api_key'), true, 'auth'],
    [
      '503 new-api no channel for the model',
      503,
      JSON_TYPE,
      jsonError('No available channel for model x under group default', 'model_not_found'),
      true,
      'model_not_found',
    ],
    ['403 model not open', 403, JSON_TYPE, jsonError('model gpt-4o is not available for your account'), true, 'model_not_found'],
    ['404 model', 404, JSON_TYPE, jsonError('The model `x` does not exist or you do not have access to it.'), true, 'model_not_found'],
    // A region word inside a model or deployment id (Azure deployment names are free text) is no region refusal.
    [
      '404 model_not_found for a model id holding "region"',
      404,
      JSON_TYPE,
      jsonError('The model `gpt-4o-region-eu` is not supported on this endpoint', 'model_not_found'),
      true,
      'model_not_found',
    ],
    [
      '404 for a model id holding "territory"',
      404,
      JSON_TYPE,
      jsonError('Unknown model: llama-3-territory-8b is not supported'),
      true,
      'model_not_found',
    ],
    [
      '404 detail for a model id holding "country"',
      404,
      JSON_TYPE,
      '{"detail":"Model not found: country_music_gen not supported"}',
      true,
      'model_not_found',
    ],
    // OpenAI's region refusal (home-assistant/core#120072): its words alone, the code aside, still read as one.
    ['403 OpenAI region refusal', 403, JSON_TYPE, jsonError('Country, region, or territory not supported'), true, 'bad_request'],
    ['404 HTML page', 404, 'text/html', HTML_PAGE, true, 'html_instead_of_json'],
    ['404 HTML page for a non-JSON client', 404, 'text/html', HTML_PAGE, false, 'html_instead_of_json'],
    ['404 JSON unknown path', 404, JSON_TYPE, jsonError('Invalid URL (POST /v1/foo)'), true, 'bad_request'],
    ['404 plain text body', 404, 'text/plain', 'Not Found', true, 'bad_request'],
    ['408', 408, JSON_TYPE, '', true, 'timeout_total'],
    ["413 HTML page (nginx's body size limit)", 413, 'text/html', HTML_PAGE, true, 'bad_request'],
    // A firewall's block page (Cloudflare's, nginx's deny): the address is the gateway's, the request was refused.
    ['403 HTML page', 403, 'text/html', HTML_PAGE, true, 'bad_request'],
    ['413 JSON', 413, JSON_TYPE, jsonError('Request too large'), true, 'bad_request'],
    ['422 JSON', 422, JSON_TYPE, jsonError('messages is required'), true, 'bad_request'],
    ['429', 429, JSON_TYPE, jsonError('rate limit'), true, 'rate_limited'],
    ['429 HTML from a CDN', 429, 'text/html', HTML_PAGE, true, 'rate_limited'],
    ['500', 500, JSON_TYPE, jsonError('internal'), true, 'upstream_error'],
    ['502 HTML from nginx', 502, 'text/html', HTML_PAGE, true, 'upstream_error'],
    ['503', 503, JSON_TYPE, '', true, 'upstream_error'],
    ['504', 504, 'text/html', HTML_PAGE, true, 'timeout_total'],
    ['524 Cloudflare timeout', 524, 'text/html', HTML_PAGE, true, 'timeout_total'],
    ['529 overloaded', 529, JSON_TYPE, jsonError('Overloaded', 'overloaded_error'), true, 'upstream_error'],
  ])('%s', (_label, status, contentType, bodyText, expectJson, expected) => {
    expect(classifyUpstreamResponse({ status, contentType, bodyText, expectJson })).toBe(expected);
  });
});

const withCode = (code: string, cause?: unknown) => Object.assign(new Error(code), { code, cause });
const abortError = (reason: unknown) => Object.assign(new DOMException('aborted', 'AbortError'), { reason });

describe('classifyNetworkFailure', () => {
  it.each([
    ['connect timeout', withCode('UND_ERR_CONNECT_TIMEOUT'), 'timeout_connect'],
    ['OS connect timeout', withCode('ETIMEDOUT'), 'timeout_connect'],
    ['headers timeout', withCode('UND_ERR_HEADERS_TIMEOUT'), 'timeout_idle'],
    ['body timeout', withCode('UND_ERR_BODY_TIMEOUT'), 'timeout_idle'],
    ['answer headers too large', withCode('UND_ERR_HEADERS_OVERFLOW'), 'upstream_error'],
    ['refused', withCode('ECONNREFUSED'), 'network'],
    ['not found', withCode('ENOTFOUND'), 'network'],
    ['reset', withCode('ECONNRESET'), 'network'],
    ['socket', withCode('UND_ERR_SOCKET'), 'network'],
    ['DNS again', withCode('EAI_AGAIN'), 'network'],
    [
      'fetch failed wrapping a connect timeout',
      new TypeError('fetch failed', { cause: withCode('UND_ERR_CONNECT_TIMEOUT') }),
      'timeout_connect',
    ],
    ['two levels deep', new Error('a', { cause: new Error('b', { cause: withCode('UND_ERR_BODY_TIMEOUT') }) }), 'timeout_idle'],
    ['abort with reason timeout_total', abortError('timeout_total'), 'timeout_total'],
    ['abort with reason timeout_idle', abortError('timeout_idle'), 'timeout_idle'],
    ['the reason thrown as is', 'timeout_total', 'timeout_total'],
    ['abort wrapped in a cause', new Error('x', { cause: abortError('timeout_total') }), 'timeout_total'],
    ['AbortSignal.timeout', new DOMException('t', 'TimeoutError'), 'timeout_total'],
    ['an answer that does not decode', new AnswerDecodingError('incorrect header check'), 'upstream_error'],
    ['an undecodable answer as a cause', new Error('x', { cause: new AnswerDecodingError('zstd') }), 'upstream_error'],
    ['abort without a timeout reason', abortError('client went away'), 'network'],
    ['plain error', new Error('boom'), 'network'],
    ['not an error', 42, 'network'],
    ['null', null, 'network'],
  ])('%s -> %s', (_label, error, expected) => {
    expect(classifyNetworkFailure(error)).toBe(expected);
  });

  it('stops on a cause cycle', () => {
    const first: Error & { cause?: unknown } = new Error('a');
    first.cause = new Error('b', { cause: first });
    expect(classifyNetworkFailure(first)).toBe('network');
  });
});

describe('networkFailureCode', () => {
  it.each([
    [new TypeError('fetch failed', { cause: withCode('ENOTFOUND') }), 'ENOTFOUND'],
    [withCode('UND_ERR_SOCKET', withCode('ECONNRESET')), 'UND_ERR_SOCKET'],
    [new Error('none'), null],
    // undici's ProxyAgent when the proxy answers its CONNECT with other than 200 (lib/dispatcher/proxy-agent.js).
    [proxyAnswered(407), 'proxy_refused'],
    [proxyAnswered(403), 'proxy_refused'],
    [new TypeError('fetch failed', { cause: proxyAnswered(401) }), 'proxy_refused'],
    [proxyAnswered(502), 'proxy_gateway_unreachable'],
    [proxyAnswered(500), 'proxy_gateway_unreachable'],
    [withCode('UND_ERR_ABORTED'), 'UND_ERR_ABORTED'],
  ])('%s -> %s', (error, expected) => {
    expect(networkFailureCode(error)).toBe(expected);
  });

  it('classes a proxy that refused the tunnel as a network failure', () => {
    expect(classifyNetworkFailure(proxyAnswered(407))).toBe('network');
  });
});

function proxyAnswered(status: number): Error {
  const error = new Error(`Proxy response (${status}) !== 200 when HTTP Tunneling`);
  return Object.assign(error, { name: 'AbortError', code: 'UND_ERR_ABORTED' });
}

describe('statusForClass', () => {
  it.each<[ExchangeFailureClass, number | null, number]>([
    ['bad_request', null, 400],
    ['bad_request', 413, 413],
    ['bad_request', 404, 404],
    ['auth', null, 401],
    ['auth', 403, 403],
    ['model_not_found', 400, 404],
    ['model_not_found', 503, 404],
    ['quota_exhausted', 429, 402],
    ['quota_exhausted', 403, 402],
    ['rate_limited', null, 429],
    ['upstream_error', 503, 503],
    ['upstream_error', 200, 502],
    ['timeout_connect', null, 504],
    ['timeout_idle', null, 504],
    ['timeout_total', 408, 504],
    ['html_instead_of_json', 200, 400],
    ['html_instead_of_json', 404, 400],
    ['stream_interrupted', null, 502],
    ['network', null, 502],
    ['proxy_stopping', null, 503],
  ])('%s (upstream %s) -> %s', (errorClass, upstreamStatus, expected) => {
    expect(statusForClass(errorClass, upstreamStatus)).toBe(expected);
  });

  it.each([...UPSTREAM_ERROR_CLASSES, 'proxy_stopping' as const])('%s has an error status', (errorClass) => {
    expect(statusForClass(errorClass)).toBeGreaterThanOrEqual(400);
  });
});
