import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { JSON_HEADERS, rawRequest } from '../../support/http.ts';

/**
 * A gateway without an API a script calls: a site in front of its API answers its own page for a
 * path it does not route (OpenRouter's "Not Found | OpenRouter" page, and a 405 with no body for a
 * POST: Pasta-Devs/Marinara-Engine#22, chatboxai/chatbox#1486), while chat at the same base URL works.
 */
const NOT_FOUND_PAGE = '<!DOCTYPE html><html><head><title>Not Found | OpenRouter</title></head><body><h1>404</h1></body></html>';

let harness: Harness;
let client: OpenAI;

beforeAll(async () => {
  harness = await startHarness();
  client = new OpenAI({ baseURL: `${harness.proxy.url}/v1`, apiKey: 'client-placeholder', maxRetries: 0 });
});
afterAll(() => harness.close());

function errorOf(body: string): { type: string; message: string } {
  return (JSON.parse(body) as { error: { type: string; message: string } }).error;
}

describe('an API the gateway lacks, answered with a web page', () => {
  it('is a missing endpoint (404 as the gateway said), not a base URL to change', async () => {
    harness.simulator.script({ kind: 'text', path: '/rerank', status: 404, contentType: 'text/html', text: NOT_FOUND_PAGE });
    const ended = harness.nextEnd();
    const response = await rawRequest(`${harness.proxy.url}/v1/rerank`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: JSON.stringify({ model: 'rerank-v1', query: 'q', documents: ['a'] }),
    });
    expect(response.status).toBe(404);
    const error = errorOf(response.body);
    expect(error.type).toBe('bad_request');
    expect(error.message).toContain('no endpoint at this path');
    expect(error.message).not.toContain("Set the profile's base URL");
    expect((await ended).errorClass).toBe('bad_request');
  });

  it('reaches the OpenAI SDK as its NotFoundError, and a 405 with no body names the API as missing', async () => {
    harness.simulator.script({ kind: 'text', path: '/images', status: 404, contentType: 'text/html', text: NOT_FOUND_PAGE });
    await expect(client.images.generate({ model: 'gpt-image-1', prompt: 'a cat' })).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    harness.simulator.script({ kind: 'text', path: '/models/', status: 404, contentType: 'text/html', text: NOT_FOUND_PAGE });
    await expect(client.models.retrieve('gpt-4o-mini')).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    harness.simulator.script({ kind: 'text', path: '/embeddings', status: 405, text: '' });
    const failure = await client.embeddings.create({ model: 'text-embedding-3-small', input: 'a' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect((failure as InstanceType<typeof OpenAI.APIError>).status).toBe(405);
    expect((failure as Error).message).toContain('it does not offer this API');
  });

  it('still says the base URL is wrong where every gateway answers: chat and the model list', async () => {
    for (const [path, method] of [
      ['/v1/chat/completions', 'POST'],
      ['/v1/models', 'GET'],
    ] as const) {
      harness.simulator.script({ kind: 'text', status: 404, contentType: 'text/html', text: NOT_FOUND_PAGE });
      const response = await rawRequest(`${harness.proxy.url}${path}`, {
        method,
        headers: JSON_HEADERS,
        ...(method === 'POST' ? { body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }) } : {}),
      });
      expect(errorOf(response.body).type).toBe('html_instead_of_json');
    }
  });

  it("still says the base URL is wrong when the profile's base URL lacks its version segment (/v1)", async () => {
    // The spec's base URL ends in /v1 (docs/gateway-spec.md, placeholders): one without it reaches a site's pages for every path.
    const withVersion = harness.profile.baseUrl;
    harness.profile.baseUrl = withVersion.replace(/\/v1$/, '');
    try {
      harness.simulator.script({ kind: 'text', path: '/embeddings', status: 404, contentType: 'text/html', text: NOT_FOUND_PAGE });
      const response = await rawRequest(`${harness.proxy.url}/v1/embeddings`, {
        method: 'POST',
        headers: JSON_HEADERS,
        body: JSON.stringify({ model: 'text-embedding-3-small', input: 'a' }),
      });
      expect(harness.simulator.received.at(-1)?.path).toBe('/embeddings');
      expect(errorOf(response.body).type).toBe('html_instead_of_json');
    } finally {
      harness.profile.baseUrl = withVersion;
    }
  });
});
