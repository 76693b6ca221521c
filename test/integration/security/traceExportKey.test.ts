import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { REDACTED } from '../../../proxy/core/redact.ts';
import { startControlHarness, type ControlHarness } from '../../support/controlHarness.ts';
import { startOtlpReceiver, type OtlpReceiver } from '../../support/otlpReceiver.ts';
import { findSentinel, SENTINEL_KEY } from '../../support/sentinel.ts';
import { chat, setUpProfile } from '../app/export/exportSetup.ts';

let harness: ControlHarness;
let receiver: OtlpReceiver;
let token = '';

const spanOf = (requestId: string) => receiver.spans.find((span) => span.attributes['airlock.request_id'] === requestId);

async function spanFor(reply: { headers: Record<string, unknown> }) {
  const requestId = String(reply.headers['x-airlock-request-id']);
  await expect.poll(() => spanOf(requestId) !== undefined).toBe(true);
  return spanOf(requestId)!;
}

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  harness = await startControlHarness();
  token = await setUpProfile(harness, 'trace-key');
  const response = await harness.api('/settings/trace-export', { method: 'PUT', body: JSON.stringify({ otlpEndpoint: receiver.url }) });
  expect(response.status).toBe(200);
});
afterAll(async () => {
  await harness?.close();
  await receiver?.close();
});
beforeEach(() => harness.simulator.reset());

/**
 * The spans are built from the proxy's own events, not from the masked log rows: what the log and
 * the live feed mask (model names from the gateway and from clients) must be masked here too.
 */
describe('OTLP spans never carry the gateway key', () => {
  it('a gateway that answers with the key as its model: the response model is masked', async () => {
    harness.simulator.script({ kind: 'reply', model: SENTINEL_KEY });
    const reply = await chat(harness, token);
    expect(reply.status).toBe(200);
    const span = await spanFor(reply);
    expect(span.attributes['gen_ai.response.model']).toBe(REDACTED);
    expect(findSentinel(JSON.stringify(span))).toBeNull();
  });

  it('a client that sends the key as its model (fields swapped in its settings): name and request model are masked', async () => {
    const reply = await chat(harness, token, { model: SENTINEL_KEY });
    const span = await spanFor(reply);
    expect(span.attributes['gen_ai.request.model']).toBe(REDACTED);
    expect(span.name).toBe(`chat ${REDACTED}`);
    expect(findSentinel(JSON.stringify(span))).toBeNull();
  });

  it('a gateway that answers with the key percent-encoded as its model (%2D for each dash): masked as well', async () => {
    harness.simulator.script({ kind: 'reply', model: `ft:${SENTINEL_KEY.replaceAll('-', '%2D')}` });
    const reply = await chat(harness, token);
    const span = await spanFor(reply);
    expect(span.attributes['gen_ai.response.model']).toBe(`ft:${REDACTED}`);
    expect(findSentinel(JSON.stringify(span))).toBeNull();
  });

  it('nothing the collector received holds the key', () => {
    expect(findSentinel(receiver.rawBodies.join('\n'))).toBeNull();
  });
});
