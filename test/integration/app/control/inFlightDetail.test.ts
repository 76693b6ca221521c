import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestDetail, RequestPage } from '../../../../proxy/contracts/requests.ts';
import type { TokenSecretResponse } from '../../../../proxy/contracts/clientTokens.ts';
import { startControlHarness, type ControlHarness } from '../../../support/controlHarness.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../../support/http.ts';
import { findSentinel, SENTINEL_KEY } from '../../../support/sentinel.ts';

/** GET /requests/:id while the request is still streaming: its headers and body are there at once. */
let harness: ControlHarness;
let clientToken = '';

const call = <T>(path: string, init: RequestInit = {}): Promise<T> => harness.json<T>(path, init);

beforeAll(async () => {
  harness = await startControlHarness({ simulator: { streamChunkCount: 30, streamChunkIntervalMs: 100 } });
  await call('/profiles', { method: 'POST', body: JSON.stringify({ id: 'main', name: 'Main', baseUrl: harness.simulator.baseUrl }) });
  await call('/profiles/main/key', { method: 'PUT', body: JSON.stringify({ key: SENTINEL_KEY }) });
  await call('/profiles/main/activate', { method: 'POST' });
  clientToken = (await call<TokenSecretResponse>('/tokens', { method: 'POST', body: JSON.stringify({ name: 'streamer' }) })).token;
});

afterAll(async () => {
  await harness?.close();
});

describe('an in-flight request', () => {
  it('shows its masked request headers and body before it ends, and the logged ones after', async () => {
    const streaming = rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${clientToken}` },
      // A key pasted into a prompt by mistake must not reach the window either.
      body: chatBody({ stream: true, messages: [{ role: 'user', content: `watch this stream ${SENTINEL_KEY}` }] }),
    });
    await expect
      .poll(async () => (await call<RequestPage>('/requests')).items.find((item) => item.state === 'in_flight')?.id)
      .toBeDefined();
    const id = (await call<RequestPage>('/requests')).items.find((item) => item.state === 'in_flight')?.id ?? '';

    const during = await call<RequestDetail>(`/requests/${id}`);
    expect(during.state).toBe('in_flight');
    expect(during.requestHeaders['content-type']).toBe('application/json');
    expect(during.requestHeaders.authorization).toBeUndefined();
    expect(during.requestBody?.text).toContain('watch this stream');
    expect(during.responseBody).toBeNull();
    expect(findSentinel(JSON.stringify(during))).toBeNull();

    expect((await streaming).status).toBe(200);
    await harness.log.flush();
    const after = await call<RequestDetail>(`/requests/${id}`);
    expect(after.state).toBe('done');
    expect(after.requestBody?.text).toContain('watch this stream');
    expect(after.streamText).not.toBeNull();
  });
});
