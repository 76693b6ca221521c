import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Fault } from '../../simulator/types.ts';
import { callThroughAirlock, startMatrix, type MatrixHarnesses, type Variant, variantName } from '../../support/faultMatrix.ts';
import { findSentinel, SENTINEL_KEY } from '../../support/sentinel.ts';

/**
 * A gateway that refuses a translated request (401, 402, 403, 429, 500) with a body that is not
 * OpenAI's error: an HTML page, nothing, plain words, or another relay's JSON. Claude Code and Codex
 * must get the error in their own protocol's shape, with the status that tells their SDK what to
 * do, the type Anthropic gives that status, and never the key the gateway quoted.
 * gatewayAnswers.test.ts covers 400, 403 pages, 413 and 502 pages for every protocol; these are the
 * statuses and shapes it does not.
 */
let matrix: MatrixHarnesses;
beforeAll(async () => {
  matrix = await startMatrix();
});
afterAll(async () => {
  await matrix.close();
});

const json = (status: number, body: object): Fault => ({
  kind: 'text',
  status,
  contentType: 'application/json',
  text: JSON.stringify(body),
});

interface RefusalCase {
  name: string;
  fault: Fault;
  status: number;
  /** The type Anthropic's API gives this status (https://docs.anthropic.com/en/api/errors; @anthropic-ai/sdk's ErrorType). */
  anthropicType?: string;
  /** Words of the gateway's that must reach the client. */
  said?: string;
  /** Where a Responses client is answered as OpenAI answers it, not with the gateway's status. */
  responses?: { status: number; code: string };
}

const CASES: RefusalCase[] = [
  {
    name: "nginx's 401 page",
    fault: { kind: 'errorPage', status: 401, server: 'nginx' },
    status: 401,
    anthropicType: 'authentication_error',
  },
  { name: 'a 401 with an empty JSON body', fault: json(401, {}), status: 401, anthropicType: 'authentication_error' },
  {
    name: 'a 401 with no body at all',
    fault: { kind: 'text', status: 401, contentType: 'application/json', text: '' },
    status: 401,
    anthropicType: 'authentication_error',
  },
  {
    name: 'a 401 in plain words quoting the key',
    fault: { kind: 'text', status: 401, contentType: 'text/plain', text: `invalid api key ${SENTINEL_KEY}` },
    status: 401,
    anthropicType: 'authentication_error',
    said: 'invalid api key',
  },
  // new-api's invalid token: 401 {error:{message,type:'new_api_error',code:''}} (test/simulator/dialects.ts, newApi).
  {
    name: "new-api's 401",
    fault: json(401, { error: { message: '无效的令牌 (request id: 20261128220000123456)', type: 'new_api_error', code: '' } }),
    status: 401,
    anthropicType: 'authentication_error',
    said: '无效的令牌',
  },
  // LiteLLM's proxy names its exception and sends the status as a string code (BerriAI/litellm#39748's shape).
  {
    name: "LiteLLM's 401 quoting the key",
    fault: json(401, {
      error: {
        message: `Authentication Error, Invalid proxy server token passed. Received API Key = ${SENTINEL_KEY}`,
        type: 'auth_error',
        param: 'None',
        code: '401',
      },
    }),
    status: 401,
    anthropicType: 'authentication_error',
    said: 'Invalid proxy server token passed',
  },
  // OpenRouter's empty balance: 402 with the status as a number code (https://openrouter.ai/docs/api/reference/errors-and-debugging).
  {
    name: "OpenRouter's 402",
    fault: json(402, { error: { code: 402, message: 'Insufficient credits. Add more using https://openrouter.ai/settings/credits' } }),
    status: 402,
    anthropicType: 'billing_error',
    said: 'Insufficient credits',
    // OpenAI's own answer to an empty balance, which Codex stops at instead of resending the turn five times.
    responses: { status: 429, code: 'insufficient_quota' },
  },
  {
    name: 'a 403 with no body',
    fault: { kind: 'text', status: 403, contentType: 'text/plain', text: '' },
    status: 403,
    anthropicType: 'permission_error',
  },
  {
    name: 'a 403 in plain words',
    fault: { kind: 'text', status: 403, contentType: 'text/plain', text: 'Forbidden' },
    status: 403,
    anthropicType: 'permission_error',
    said: 'Forbidden',
  },
  {
    name: 'a 429 with no body',
    fault: { kind: 'text', status: 429, contentType: 'text/plain', text: '' },
    status: 429,
    anthropicType: 'rate_limit_error',
  },
  { name: "nginx's 429 page", fault: { kind: 'errorPage', status: 429, server: 'nginx' }, status: 429, anthropicType: 'rate_limit_error' },
  {
    name: "new-api's 429",
    fault: json(429, { error: { message: '您已达到请求数限制：1分钟内最多请求60次', type: 'new_api_error', code: '' } }),
    status: 429,
    anthropicType: 'rate_limit_error',
    said: '您已达到请求数限制',
  },
  {
    name: "LiteLLM's 429",
    fault: json(429, {
      error: { message: 'litellm.RateLimitError: Rate limit reached for gpt-4o-mini', type: 'None', param: 'None', code: '429' },
    }),
    status: 429,
    anthropicType: 'rate_limit_error',
    said: 'Rate limit reached',
  },
  { name: "nginx's 500 page", fault: { kind: 'errorPage', status: 500, server: 'nginx' }, status: 500, anthropicType: 'api_error' },
  {
    name: 'a 500 with no body',
    fault: { kind: 'text', status: 500, contentType: 'application/json', text: '' },
    status: 500,
    anthropicType: 'api_error',
  },
  {
    name: 'a 500 in plain words',
    fault: { kind: 'text', status: 500, contentType: 'text/plain; charset=utf-8', text: 'Internal Server Error' },
    status: 500,
    anthropicType: 'api_error',
    said: 'Internal Server Error',
  },
  {
    name: "new-api's 500",
    fault: json(500, {
      error: {
        message: 'upstream error: do request failed (request id: 20261128220000123456)',
        type: 'new_api_error',
        code: 'do_request_failed',
      },
    }),
    status: 500,
    anthropicType: 'api_error',
    said: 'do request failed',
  },
  {
    name: "LiteLLM's 500",
    fault: json(500, {
      error: {
        message: 'litellm.InternalServerError: InternalServerError: OpenAIException - Connection error.',
        type: null,
        param: null,
        code: '500',
      },
    }),
    status: 500,
    anthropicType: 'api_error',
    said: 'Connection error',
  },
];

const VARIANTS: Variant[] = [false, true].flatMap((stream) => [
  { client: 'messages' as const, mode: 'translate' as const, stream },
  { client: 'responses' as const, mode: 'translate' as const, stream },
]);

describe.each(CASES)('$name, on a translated route', (refusal) => {
  it.each(VARIANTS.map((variant) => [variantName(variant), variant] as const))('%s', async (_name, variant) => {
    const harness = matrix.translate;
    harness.simulator.reset();
    harness.simulator.script(refusal.fault);
    const ended = harness.nextEnd();
    const outcome = await callThroughAirlock(harness, variant);
    const end = await ended;

    expect(outcome.otherError).toBeNull();
    const status = variant.client === 'responses' ? (refusal.responses?.status ?? refusal.status) : refusal.status;
    expect(outcome.apiError?.status).toBe(status);
    if (variant.client === 'responses' && refusal.responses) expect(outcome.seen).toContain(`"code":"${refusal.responses.code}"`);
    if (variant.client === 'responses') expect(outcome.apiError?.type).toEqual(expect.any(String));
    else if (refusal.anthropicType !== undefined) expect(outcome.apiError?.type).toBe(refusal.anthropicType);
    if (refusal.said !== undefined) expect(outcome.apiError?.message).toContain(refusal.said);
    expect(outcome.text).toBe('');
    expect(end.status).toBe(status);
    // No model ran: nothing is billed.
    expect(end.costCredits).toBeNull();
    expect(findSentinel(outcome.seen)).toBeNull();
    expect(findSentinel(JSON.stringify(end))).toBeNull();
  });
});
