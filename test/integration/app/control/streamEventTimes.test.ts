import { createParser } from 'eventsource-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestDetail, RequestPage } from '../../../../proxy/contracts/requests.ts';
import type { TokenSecretResponse } from '../../../../proxy/contracts/clientTokens.ts';
import { startControlHarness, type ControlHarness } from '../../../support/controlHarness.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../../support/http.ts';
import { SENTINEL_KEY } from '../../../support/sentinel.ts';

/** A stream's events, timed as they arrived at the proxy, through the real proxy to the request detail. */
const CONTENT_CHUNKS = 4;
const CHUNK_INTERVAL_MS = 25;
let harness: ControlHarness;
let clientToken = '';

const call = <T>(path: string, init: RequestInit = {}): Promise<T> => harness.json<T>(path, init);

function eventCount(raw: string): number {
  let count = 0;
  const parser = createParser({ onEvent: () => (count += 1) });
  parser.feed(raw);
  return count;
}

beforeAll(async () => {
  harness = await startControlHarness({ simulator: { streamChunkCount: CONTENT_CHUNKS, streamChunkIntervalMs: CHUNK_INTERVAL_MS } });
  await call('/profiles', { method: 'POST', body: JSON.stringify({ id: 'main', name: 'Main', baseUrl: harness.simulator.baseUrl }) });
  await call('/profiles/main/key', { method: 'PUT', body: JSON.stringify({ key: SENTINEL_KEY }) });
  await call('/profiles/main/activate', { method: 'POST' });
  clientToken = (await call<TokenSecretResponse>('/tokens', { method: 'POST', body: JSON.stringify({ name: 'timer' }) })).token;
});

afterAll(async () => {
  await harness?.close();
});

describe('stream event times', () => {
  it.each([
    ['a chat stream relayed as it is', '/v1/chat/completions', chatBody({ stream: true })],
    [
      'a Messages stream translated from chat',
      '/v1/messages',
      JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    ],
  ])('%s: one offset per logged event, in arrival order, spread as the gateway spaced them', async (_name, path, body) => {
    const response = await rawRequest(`${harness.proxy.url}${path}`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${clientToken}` },
      body,
    });
    expect(response.status).toBe(200);
    await harness.log.flush();
    const page = await call<RequestPage>('/requests');
    const id = page.items.find((item) => item.clientPath === path)?.id ?? '';
    const detail = await call<RequestDetail>(`/requests/${id}`);

    const raw = detail.streamEvents?.text ?? '';
    const offsets = detail.streamEventOffsetsMs ?? [];
    // The gateway's events as logged (chat events for the translated stream too), each with its time.
    expect(eventCount(raw)).toBeGreaterThan(CONTENT_CHUNKS);
    expect(offsets).toHaveLength(eventCount(raw));
    for (let index = 1; index < offsets.length; index += 1) expect(offsets[index]).toBeGreaterThanOrEqual(offsets[index - 1] ?? 0);
    expect(offsets.at(-1)).toBeLessThanOrEqual(Math.ceil(detail.durationMs ?? 0));
    // The gateway waited before each content chunk: the times are arrivals, not the time the stream ended.
    // At least the waits between its content chunks lie between the first event and the last (whole
    // ms, and a timer may fire up to a ms early: two ms of slack per wait).
    expect((offsets.at(-1) ?? 0) - (offsets[0] ?? 0)).toBeGreaterThanOrEqual((CONTENT_CHUNKS - 1) * (CHUNK_INTERVAL_MS - 2));
  });
});
