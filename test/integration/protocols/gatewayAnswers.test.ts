import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorClass } from '../../../proxy/contracts/errors.ts';
import { explainError } from '../../../proxy/core/errorClass.ts';
import { explainErrorAt } from '../../../proxy/core/errorExplanations.ts';
import type { Fault } from '../../simulator/types.ts';
import {
  harnessFor,
  rawRequestOf,
  runFault,
  startMatrix,
  STREAMED_TEXT,
  upstreamPrefix,
  VARIANTS,
  variantName,
  type MatrixHarnesses,
  type Variant,
} from '../../support/faultMatrix.ts';
import { JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { findSentinel, SENTINEL_KEY } from '../../support/sentinel.ts';

/**
 * A gateway (or what sits in front of it) that answers with an error, a page or a coded body, for
 * each protocol Airlock serves, streamed and whole, native and translated: the client's SDK parses
 * an error of its own protocol with the cause and the fix, the gateway gets the request once (no
 * resend by Airlock or by the client's own HTTP stack), the row names the class, nothing is billed
 * for a request no model ran, and the key is never echoed.
 */
let matrix: MatrixHarnesses;
beforeAll(async () => {
  matrix = await startMatrix();
});
afterAll(async () => {
  await matrix.close();
});

interface ErrorCase {
  name: string;
  fault: Fault;
  errorClass: ErrorClass;
  /** The status an OpenAI-shaped client gets, and an Anthropic one. */
  status: number;
  anthropic: { status: number; type: string };
  /** What the gateway said, or the hint for it, that must reach the client. */
  said?: string;
  /**
   * What an Anthropic client must read in the message: Claude Code knows a context overflow only by
   * Anthropic's own words, "prompt is too long: N tokens > M maximum" (anthropics/claude-code#820;
   * its binary matches "prompt is too long" in the message and reads N and M after it).
   */
  anthropicSays?: string;
}

const VLLM_CONTEXT =
  "This model's maximum context length is 32768 tokens. However, you requested 40000 tokens (39000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.";
const OPENROUTER_CONTEXT =
  'This endpoint\'s maximum context length is 131072 tokens. However, you requested about 200000 tokens (199000 of text input, 1000 in the output). Please reduce the length of either one, or use the "middle-out" transform to compress your prompt automatically.';

const ERRORS: ErrorCase[] = [
  {
    name: "nginx's 502 page",
    fault: { kind: 'errorPage', status: 502, server: 'nginx' },
    errorClass: 'upstream_error',
    status: 502,
    anthropic: { status: 502, type: 'api_error' },
  },
  {
    name: "Cloudflare's 502 page",
    fault: { kind: 'errorPage', status: 502, server: 'cloudflare' },
    errorClass: 'upstream_error',
    status: 502,
    anthropic: { status: 502, type: 'api_error' },
  },
  // A firewall in front of a gateway blocking an API client: Cloudflare's "Sorry, you have been blocked" and
  // "Access denied" (error 1010) pages (JohnnyZ93/oai-compatible-copilot#287, openai/codex#4284), nginx's `deny`.
  // The address is right: a new base URL fixes nothing.
  ...(['cloudflare', 'nginx'] as const).map(
    (server): ErrorCase => ({
      name: `${server}'s 403 page`,
      fault: { kind: 'errorPage', status: 403, server },
      errorClass: 'bad_request',
      status: 403,
      anthropic: { status: 403, type: 'permission_error' },
      said: 'a firewall in front of it',
    }),
  ),
  // Cloudflare refuses a client's HTTP signature at the edge with a plain-text `error code: 1010`, the
  // same 403 from every endpoint and for any key (cth9191/higgsfield-api-skill#1): those words are the
  // only sign of what refused the request, and the client must see them.
  {
    name: "Cloudflare's plain-text 403 (error code 1010)",
    fault: { kind: 'text', status: 403, contentType: 'text/plain; charset=UTF-8', text: 'error code: 1010' },
    errorClass: 'bad_request',
    status: 403,
    anthropic: { status: 403, type: 'permission_error' },
    said: 'error code: 1010',
  },
  // OpenRouter answers a model its provider geo-blocks with a 403 naming the model and the region
  // (standardagents/dmux#43, anomalyco/opencode#19117): the model exists, and a region is no key problem.
  {
    name: "OpenRouter's 403 for a model not available in the caller's region",
    fault: { kind: 'status', status: 403, body: { error: { message: 'This model is not available in your region.', code: 403 } } },
    errorClass: 'bad_request',
    status: 403,
    anthropic: { status: 403, type: 'permission_error' },
    said: 'This model is not available in your region.',
  },
  // A debugging proxy's error page that echoes the request's headers, the gateway key among them.
  {
    name: 'a 502 page echoing the Authorization header',
    fault: {
      kind: 'text',
      status: 502,
      contentType: 'text/html',
      text: `<html><body><h1>502</h1><pre>Authorization: Bearer ${SENTINEL_KEY}</pre></body></html>`,
    },
    errorClass: 'upstream_error',
    status: 502,
    anthropic: { status: 502, type: 'api_error' },
  },
  {
    name: 'a 200 whose body is not JSON and echoes the key',
    fault: { kind: 'text', status: 200, text: `Unauthorized client ${SENTINEL_KEY}, try later` },
    errorClass: 'html_instead_of_json',
    status: 400,
    anthropic: { status: 400, type: 'invalid_request_error' },
    said: 'try later',
  },
  {
    name: 'a 200 whose body is not JSON (a maintenance text)',
    fault: { kind: 'text', status: 200, text: 'Service temporarily under maintenance' },
    errorClass: 'html_instead_of_json',
    status: 400,
    anthropic: { status: 400, type: 'invalid_request_error' },
    said: 'Service temporarily under maintenance',
  },
  // vLLM before 0.9 answered its errors at the top level, later under `error` (vllm#4667, vllm#37011).
  {
    name: "vLLM's 400 for a context over the model's length (top level)",
    fault: {
      kind: 'status',
      status: 400,
      body: { object: 'error', message: VLLM_CONTEXT, type: 'BadRequestError', param: null, code: 400 },
    },
    errorClass: 'bad_request',
    status: 400,
    anthropic: { status: 400, type: 'invalid_request_error' },
    said: VLLM_CONTEXT,
    anthropicSays: 'prompt is too long: 40000 tokens > 32768 maximum',
  },
  {
    name: "vLLM's 400 for a context over the model's length (under error)",
    fault: { kind: 'status', status: 400, body: { error: { message: VLLM_CONTEXT, type: 'BadRequestError', param: null, code: 400 } } },
    errorClass: 'bad_request',
    status: 400,
    anthropic: { status: 400, type: 'invalid_request_error' },
    said: VLLM_CONTEXT,
    anthropicSays: 'prompt is too long: 40000 tokens > 32768 maximum',
  },
  // LiteLLM's proxy prefixes its exception names and sends the status as a string code.
  {
    name: "LiteLLM's 400 ContextWindowExceededError",
    fault: {
      kind: 'status',
      status: 400,
      body: {
        error: {
          message: `litellm.ContextWindowExceededError: litellm.BadRequestError: ${VLLM_CONTEXT}`,
          type: null,
          param: null,
          code: '400',
        },
      },
    },
    errorClass: 'bad_request',
    status: 400,
    anthropic: { status: 400, type: 'invalid_request_error' },
    said: 'ContextWindowExceededError',
    anthropicSays: 'prompt is too long: 40000 tokens > 32768 maximum',
  },
  // OpenRouter: `{error:{message,code,metadata}}` with the status as a number (its docs' error shape).
  {
    name: "OpenRouter's 400 for a context over the endpoint's length",
    fault: { kind: 'status', status: 400, body: { error: { message: OPENROUTER_CONTEXT, code: 400, metadata: { provider_name: null } } } },
    errorClass: 'bad_request',
    status: 400,
    anthropic: { status: 400, type: 'invalid_request_error' },
    said: "This endpoint's maximum context length",
    anthropicSays: 'prompt is too long: 200000 tokens > 131072 maximum',
  },
  // OpenRouter's 413 for an image over its limit (artokun/comfyui-mcp#2221).
  {
    name: "OpenRouter's 413",
    fault: {
      kind: 'status',
      status: 413,
      body: { error: { message: 'Downloaded image content cannot exceed 30MB', code: 413, metadata: { provider_name: null } } },
    },
    errorClass: 'bad_request',
    status: 413,
    anthropic: { status: 413, type: 'request_too_large' },
    said: 'cannot exceed 30MB',
  },
  // Codex users met Cloudflare's own 413 page in front of a gateway (openai/codex#2908).
  {
    name: "Cloudflare's 413 page",
    fault: { kind: 'errorPage', status: 413, server: 'cloudflare' },
    errorClass: 'bad_request',
    status: 413,
    anthropic: { status: 413, type: 'request_too_large' },
  },
];

const cases = (variants: readonly Variant[]) => variants.map((variant) => [variantName(variant), variant] as const);

describe.each(ERRORS)('$name', (errorCase) => {
  it.each(cases(VARIANTS))('%s', async (_name, variant) => {
    const { outcome, end, harness } = await runFault(matrix, variant, errorCase.fault);
    expect(outcome.otherError).toBeNull();
    const anthropic = variant.client === 'messages';
    expect(outcome.apiError).toMatchObject(anthropic ? errorCase.anthropic : { status: errorCase.status, type: errorCase.errorClass });
    // The fix its status calls for: a firewall's 403 or a 413 has its own, not the class's generic one.
    // The Anthropic SDK's message quotes the JSON body, its quotes escaped.
    const message = outcome.apiError?.message.replaceAll('\\"', '"');
    expect(message).toContain(explainErrorAt(errorCase.errorClass, errorCase.status).fix);
    if (errorCase.said !== undefined) expect(outcome.apiError?.message).toContain(errorCase.said);
    if (anthropic && errorCase.anthropicSays !== undefined) expect(outcome.apiError?.message).toContain(errorCase.anthropicSays);
    expect(outcome.text).toBe('');

    expect(end.errorClass).toBe(errorCase.errorClass);
    // No model ran: nothing is billed.
    expect(end.costCredits).toBeNull();
    // Sent once: neither Airlock nor the client's HTTP stack sent it again.
    expect(harness.simulator.received).toHaveLength(1);
    expect(findSentinel(outcome.seen)).toBeNull();
    expect(findSentinel(JSON.stringify(end))).toBeNull();
  });
});

describe('a 429 whose Retry-After is an HTTP date', () => {
  it.each(cases(VARIANTS))('%s: the client gets it as sent, in its shape, once', async (_name, variant) => {
    const retryAt = new Date(Date.now() + 30_000);
    const { outcome, end, harness } = await runFault(matrix, variant, { kind: 'status', status: 429, retryAfterDate: retryAt });
    expect(outcome.apiError).toMatchObject({
      status: 429,
      type: variant.client === 'messages' ? 'rate_limit_error' : 'rate_limited',
      retryAfter: retryAt.toUTCString(),
    });
    expect(outcome.apiError?.message).toContain(explainError('rate_limited').fix);
    expect(end.errorClass).toBe('rate_limited');
    expect(end.bodies.responseHeaders['retry-after']).toBe(retryAt.toUTCString());
    expect(harness.simulator.received).toHaveLength(1);
  });
});

describe.each(['gzip', 'br'])('an answer the gateway sends %s-encoded', (encoding) => {
  const coded = (variant: Variant): Fault => {
    const { text, contentType } = upstreamPrefix(variant);
    return { kind: 'text', status: 200, contentType, text, encoding };
  };

  it.each(cases(VARIANTS))('%s: the SDK reads it, the row has its usage as reported', async (_name, variant) => {
    const { outcome, end } = await runFault(matrix, variant, coded(variant));
    expect(outcome.apiError).toBeNull();
    expect(outcome.otherError).toBeNull();
    expect(outcome.text).toBe(STREAMED_TEXT);
    expect(end.errorClass).toBeNull();
    expect(end.usageSource).toBe('reported');
    expect(end.costCredits).toBeGreaterThan(0);
  });

  it.each(cases(VARIANTS))('%s: the client gets the decoded bytes without the coding header', async (_name, variant) => {
    const harness = harnessFor(matrix, variant);
    harness.simulator.reset();
    harness.simulator.script(coded(variant));
    const request = rawRequestOf(variant);
    const ended = harness.nextEnd();
    const response = await rawRequest(`${harness.proxy.url}${request.path}`, { method: 'POST', headers: JSON_HEADERS, body: request.body });
    expect(response.status).toBe(200);
    expect(response.headers['content-encoding']).toBeUndefined();
    expect(response.body).toContain(STREAMED_TEXT);
    expect((await ended).bodies.responseBody?.toString('utf8')).toContain(STREAMED_TEXT);
  });
});
