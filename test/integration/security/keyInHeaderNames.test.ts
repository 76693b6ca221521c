import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TokenSecretResponse } from '../../../proxy/contracts/clientTokens.ts';
import { startControlHarness, type ControlHarness } from '../../support/controlHarness.ts';
import { chatAnswerText, chatBody, JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { findSentinel } from '../../support/sentinel.ts';

/**
 * A gateway that echoes the key in a header's name rather than its value (the probe's adversarial
 * case, as a JSON member name is for a body; no gateway is known to do it). Header names are read
 * in lower case (RFC 9110 section 5.1), so a key of lower-case letters and digits comes through
 * whole: an Azure OpenAI key's 32 hexadecimal characters, as here.
 */
const LOWER_CASE_KEY = '5e7f3a9c2e5b8d41f6a0c3e9b7d2f5a8';
/**
 * The key the profile gets after the answer quoting it was logged: short and plain (as in
 * laterKeyMasking.test.ts), so no shape masks it at write, and only the read's masking knows it.
 */
const LATER_KEY = 'gwlatersentinelkey8zp4';

let harness: ControlHarness;
let clientToken = '';

beforeAll(async () => {
  harness = await startControlHarness({ simulator: { validKeys: [LOWER_CASE_KEY, LATER_KEY] } });
  const post = (path: string, body: unknown, method = 'POST') =>
    harness.json(path, { method, headers: JSON_HEADERS, body: JSON.stringify(body) });
  await post('/profiles', { id: 'main', name: 'Main', baseUrl: harness.simulator.baseUrl });
  await post('/profiles/main/key', { key: LOWER_CASE_KEY }, 'PUT');
  await post('/profiles/main/activate', {});
  clientToken = (
    await harness.json<TokenSecretResponse>('/tokens', { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify({ name: 'agent' }) })
  ).token;
});
afterAll(async () => {
  await harness?.close();
});

const streamText =
  'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n';

describe('the key in the name of a header the gateway answers with', () => {
  it.each([
    ['a whole answer', 200, false],
    ['a stream', 200, true],
    ['an error', 400, false],
  ])('%s: neither the client nor the log gets it, the other headers pass', async (_answer, status, stream) => {
    harness.simulator.script({
      kind: 'text',
      status,
      contentType: stream ? 'text/event-stream' : 'application/json',
      text: stream ? streamText : status === 200 ? chatAnswerText('hi') : '{"error":{"message":"bad request"}}',
      // One name the log keeps by its prefix (rate limits), one it drops.
      headers: { [`x-ratelimit-${LOWER_CASE_KEY}`]: '10', [`x-echo-${LOWER_CASE_KEY}`]: '1', 'x-ratelimit-remaining-requests': '9' },
    });
    const response = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${clientToken}` },
      body: chatBody({ stream }),
    });
    expect(response.status).toBe(status);
    expect(findSentinel(JSON.stringify(response.headers), LOWER_CASE_KEY)).toBeNull();
    const logged = await harness.loggedDetail(response);
    expect(findSentinel(JSON.stringify(logged), LOWER_CASE_KEY)).toBeNull();
    expect(JSON.stringify(logged)).toContain('x-ratelimit-remaining-requests');
    const id = String(response.headers['x-airlock-request-id']);
    const detail = await (await harness.api(`/requests/${id}`)).text();
    expect(findSentinel(detail, LOWER_CASE_KEY)).toBeNull();
    const har = await (await harness.api('/export/requests?format=har')).text();
    expect(findSentinel(har, LOWER_CASE_KEY)).toBeNull();
  });
});

describe('the name of a logged header holding a key Airlock learns later', () => {
  it('is left out when the row is read', async () => {
    harness.simulator.script({
      kind: 'text',
      status: 200,
      contentType: 'application/json',
      text: chatAnswerText('hi'),
      headers: { [`x-ratelimit-${LATER_KEY}`]: '10', 'x-ratelimit-remaining-requests': '9' },
    });
    const response = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${clientToken}` },
      body: chatBody(),
    });
    expect(findSentinel(JSON.stringify(await harness.loggedDetail(response)), LATER_KEY)).not.toBeNull();
    await harness.json('/profiles/main/key', { method: 'PUT', headers: JSON_HEADERS, body: JSON.stringify({ key: LATER_KEY }) });
    const detail = await (await harness.api(`/requests/${String(response.headers['x-airlock-request-id'])}`)).text();
    expect(findSentinel(detail, LATER_KEY)).toBeNull();
    expect(detail).toContain('x-ratelimit-remaining-requests');
  });
});
