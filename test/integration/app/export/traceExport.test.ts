import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTROL_TOKEN, startControlHarness, type ControlHarness } from '../../../support/controlHarness.ts';
import { startOtlpReceiver, type OtlpReceiver } from '../../../support/otlpReceiver.ts';
import { findSentinel } from '../../../support/sentinel.ts';
import { chat, setUpProfile } from './exportSetup.ts';

let harness: ControlHarness;
let receiver: OtlpReceiver;
let token = '';

async function setEndpoint(otlpEndpoint: string | null): Promise<unknown> {
  const response = await harness.api('/settings/trace-export', { method: 'PUT', body: JSON.stringify({ otlpEndpoint }) });
  expect(response.status).toBe(200);
  return response.json();
}

const spanOf = (requestId: string) => receiver.spans.find((span) => span.attributes['airlock.request_id'] === requestId);

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  harness = await startControlHarness();
  token = await setUpProfile(harness, 'trace-agent');
});

afterAll(async () => {
  await harness?.close();
  await receiver?.close();
});

describe('OpenTelemetry GenAI spans to an OTLP/HTTP collector, through the real proxy and the simulator', () => {
  it('is off by default: the setting reads null', async () => {
    expect(await (await harness.api('/settings/trace-export')).json()).toEqual({ otlpEndpoint: null, headers: [], headersProblem: null });
  });

  it('refuses an endpoint that is not an http(s) URL, naming the field', async () => {
    const response = await harness.api('/settings/trace-export', { method: 'PUT', body: JSON.stringify({ otlpEndpoint: 'ftp://x' }) });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { field: 'otlpEndpoint' } });
  });

  it('sends one CLIENT span per request with the GenAI attributes, and none before it was turned on', async () => {
    const before = await chat(harness, token);
    const sentAfterMs = Date.now();
    expect(await setEndpoint(receiver.url)).toMatchObject({ otlpEndpoint: receiver.url });

    const streamed = await chat(harness, token, { stream: true });
    const plain = await chat(harness, token, { messages: [{ role: 'user', content: 'no stream' }] });
    const failed = await chat(harness, token, { model: 'no-such-model' });
    expect([before.status, streamed.status, plain.status, failed.status]).toEqual([200, 200, 200, 404]);
    const ids = [streamed, plain, failed].map((reply) => String(reply.headers['x-airlock-request-id']));

    await expect.poll(() => ids.every((id) => spanOf(id) !== undefined)).toBe(true);
    expect(spanOf(String(before.headers['x-airlock-request-id']))).toBeUndefined();
    expect(receiver.contentTypes.every((type) => type.startsWith('application/json'))).toBe(true);

    const [streamSpan, plainSpan, failedSpan] = ids.map((id) => spanOf(id)!);
    expect(streamSpan).toMatchObject({
      name: 'chat gpt-4o-mini',
      kind: 3,
      statusCode: 0,
      resource: { 'service.name': 'airlock' },
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai',
        'gen_ai.request.model': 'gpt-4o-mini',
        'http.response.status_code': 200,
        'server.address': '127.0.0.1',
        'airlock.client': 'trace-agent',
        'airlock.profile': 'main',
      },
    });
    for (const span of [streamSpan, plainSpan]) {
      expect(span?.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
      expect(span?.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
      expect(span?.attributes['gen_ai.response.model']).toEqual(expect.any(String));
      // Times in epoch milliseconds (a number the SDK could also read as a monotonic clock reading).
      expect(span!.startTimeMs).toBeGreaterThanOrEqual(sentAfterMs - 1);
      expect(span!.endTimeMs).toBeGreaterThanOrEqual(span!.startTimeMs);
      expect(span!.endTimeMs).toBeLessThanOrEqual(Date.now());
    }
    expect(streamSpan?.attributes['gen_ai.response.time_to_first_chunk']).toEqual(expect.any(Number));
    expect(failedSpan).toMatchObject({
      statusCode: 2,
      statusMessage: 'model_not_found',
      attributes: { 'error.type': 'model_not_found', 'http.response.status_code': 404 },
    });

    // Spans carry no message content and no credential of any kind.
    const sent = receiver.rawBodies.join('\n');
    expect(findSentinel(sent)).toBeNull();
    for (const secret of [token, CONTROL_TOKEN, 'no stream']) expect(sent).not.toContain(secret);
  });

  it('stops at once when the endpoint is cleared, and follows a new one', async () => {
    expect(await setEndpoint('')).toMatchObject({ otlpEndpoint: null });
    const whileOff = await chat(harness, token);
    const second = await startOtlpReceiver();
    try {
      await setEndpoint(`${second.url}/v1/traces`);
      const whileOn = await chat(harness, token);
      const onId = String(whileOn.headers['x-airlock-request-id']);
      await expect.poll(() => second.spans.some((span) => span.attributes['airlock.request_id'] === onId)).toBe(true);
      const offId = String(whileOff.headers['x-airlock-request-id']);
      expect([...receiver.spans, ...second.spans].some((span) => span.attributes['airlock.request_id'] === offId)).toBe(false);
    } finally {
      await setEndpoint(null);
      await second.close();
    }
  });
});
