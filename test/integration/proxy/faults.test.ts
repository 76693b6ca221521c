import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { chatBody, JSON_HEADERS, rawRequest, sseData } from '../../support/http.ts';
import { findSentinel } from '../../support/sentinel.ts';

let harness: Harness;

beforeAll(async () => {
  // Short timeouts keep the timeout cases quick; the retry waits are the contract's 1, 2, 4 s.
  harness = await startHarness({ profile: { timeouts: { connectTimeoutMs: 1000, idleTimeoutMs: 1500, totalTimeoutMs: 4000 } } });
});
afterAll(async () => {
  await harness.close();
});
beforeEach(() => harness.simulator.reset());

const chat = (overrides: Record<string, unknown> = {}) =>
  rawRequest(`${harness.proxy.url}/v1/chat/completions`, { method: 'POST', headers: JSON_HEADERS, body: chatBody(overrides) });

function errorOf(body: string): { message: string; type: string; code: string } {
  return (JSON.parse(body) as { error: { message: string; type: string; code: string } }).error;
}

describe('upstream failures reach the client as one classified JSON error', () => {
  it.each([
    [400, 'bad_request', 1],
    [401, 'auth', 1],
    [500, 'upstream_error', 1],
  ])('status %i is answered as %s after %i upstream call(s)', async (status, errorClass, calls) => {
    harness.simulator.script({ kind: 'status', status });
    const response = await chat();
    expect(response.status).toBe(status);
    expect(errorOf(response.body).type).toBe(errorClass);
    expect(harness.simulator.received).toHaveLength(calls);
  });

  it('retries a 429 once after its Retry-After and then succeeds', async () => {
    harness.simulator.script({ kind: 'status', status: 429, retryAfterS: 1 });
    const ended = harness.nextEnd();
    const response = await chat();
    expect(response.status).toBe(200);
    expect(harness.simulator.received).toHaveLength(2);
    const gapMs = harness.simulator.received[1]!.receivedAtMs - harness.simulator.received[0]!.receivedAtMs;
    expect(gapMs).toBeGreaterThanOrEqual(990);
    expect((await ended).retries).toBe(1);
  });

  it('gives up on 502 after the capped retries and says so', async () => {
    const patient = await startHarness();
    try {
      patient.simulator.script(...Array.from({ length: 4 }, () => ({ kind: 'status' as const, status: 502 })));
      const started = Date.now();
      const response = await rawRequest(`${patient.proxy.url}/v1/chat/completions`, {
        method: 'POST',
        headers: JSON_HEADERS,
        body: chatBody(),
      });
      expect(response.status).toBe(502);
      expect(errorOf(response.body).type).toBe('upstream_error');
      expect(patient.simulator.received).toHaveLength(4);
      // Waits of about 1, 2 and 4 s: at least 7 s in all.
      expect(Date.now() - started).toBeGreaterThanOrEqual(7000);
    } finally {
      await patient.close();
    }
  }, 20_000);

  it("stops retrying before a wait the total timeout would cut, and answers the gateway's own failure", async () => {
    harness.simulator.script(...Array.from({ length: 4 }, () => ({ kind: 'status' as const, status: 503 })));
    const response = await chat();
    expect(response.status).toBe(503);
    expect(errorOf(response.body).type).toBe('upstream_error');
    // Waits of about 1 and 2 s fit in the 4 s; the third, 4 s, would not.
    expect(harness.simulator.received).toHaveLength(3);
  }, 20_000);

  it('names the total timeout that ended an answer stuck halfway', async () => {
    const strict = await startHarness({ profile: { timeouts: { idleTimeoutMs: 60_000, totalTimeoutMs: 1000 } } });
    try {
      const text = '{"id":"chatcmpl-1","choices":[]}';
      strict.simulator.script({ kind: 'text', status: 200, contentType: 'application/json', text, stallAfterBytes: 8 });
      const ended = strict.nextEnd();
      // A JSON answer is read whole before its headers go out: the client gets the failure, not a cut connection.
      const response = await rawRequest(`${strict.proxy.url}/v1/chat/completions`, {
        method: 'POST',
        headers: JSON_HEADERS,
        body: chatBody(),
      });
      expect(response.status).toBe(504);
      expect(errorOf(response.body)).toMatchObject({ type: 'timeout_total' });
      expect(errorOf(response.body).message).toContain('totalTimeoutMs = 1000 ms');
      const end = await ended;
      expect(end.errorClass).toBe('timeout_total');
      expect(end.errorMessage).toBe('the upstream answer broke off: the request ran for totalTimeoutMs = 1000 ms');
    } finally {
      await strict.close();
    }
  });

  it('turns an HTML page into a JSON error about the base URL', async () => {
    harness.simulator.script({ kind: 'html' });
    const response = await chat();
    expect(response.headers['content-type']).toMatch(/application\/json/);
    const error = errorOf(response.body);
    expect(error.type).toBe('html_instead_of_json');
    expect(error.message.toLowerCase()).toContain('base url');
    expect(response.body).not.toMatch(/<html/i);
  });

  it('lists the closest real model ids when the model is not found', async () => {
    const response = await chat({ model: 'gpt4o-mini' });
    expect(response.status).toBe(404);
    const error = errorOf(response.body);
    expect(error.type).toBe('model_not_found');
    expect(error.message).toContain('gpt-4o-mini');
  });

  it('names the idle timeout when the upstream hangs, for a client that retries by itself', async () => {
    harness.simulator.script({ kind: 'hang' });
    const response = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, 'x-stainless-retry-count': '0' },
      body: chatBody(),
    });
    expect(response.status).toBe(504);
    const error = errorOf(response.body);
    expect(error.type).toBe('timeout_idle');
    expect(error.message).toContain('1500');
    expect(harness.simulator.received).toHaveLength(1);
  });

  it('refuses a malformed JSON body locally and sends nothing upstream', async () => {
    const response = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: '{"model": "x",',
    });
    expect(response.status).toBe(400);
    expect(errorOf(response.body).type).toBe('invalid_request');
    expect(harness.simulator.received).toHaveLength(0);
  });

  it('never shows the key in any error message', async () => {
    harness.simulator.script({ kind: 'status', status: 401 }, { kind: 'html' }, { kind: 'status', status: 400 });
    const bodies = [await chat(), await chat(), await chat()].map((response) => response.body).join('\n');
    expect(findSentinel(bodies)).toBeNull();
    expect(findSentinel(JSON.stringify(harness.events))).toBeNull();
  });
});

describe('broken streams', () => {
  const stream = () => chat({ stream: true });

  it('ends a stream cut by the upstream with an error event, never a fake [DONE]', async () => {
    harness.simulator.script({ kind: 'cutAfter', chunks: 2 });
    const ended = harness.nextEnd();
    const response = await stream();
    const data = sseData(response.body);
    expect(data).not.toContain('[DONE]');
    expect(JSON.parse(data.at(-1)!)).toMatchObject({ error: { type: 'stream_interrupted' } });
    expect((await ended).errorClass).toBe('stream_interrupted');
  });

  it('passes a stream that ends cleanly after its finish and usage without [DONE] as whole, with no error added', async () => {
    harness.simulator.script({ kind: 'noDone' });
    const ended = harness.nextEnd();
    const data = sseData((await stream()).body);
    expect(data).not.toContain('[DONE]');
    expect(data.some((payload) => payload.includes('"error"'))).toBe(false);
    expect(await ended).toMatchObject({ errorClass: null, usageSource: 'reported' });
  });

  it('passes an upstream error event through and records it', async () => {
    harness.simulator.script({ kind: 'errorEvent', afterChunks: 1 });
    const ended = harness.nextEnd();
    const data = sseData((await stream()).body);
    expect(data.some((payload) => payload.includes('"error"'))).toBe(true);
    expect((await ended).errorClass).toBe('upstream_error');
  });

  it('names the idle timeout when chunks stop coming', async () => {
    harness.simulator.script({ kind: 'slowChunks', intervalMs: 2500 });
    const data = sseData((await stream()).body);
    expect(JSON.parse(data.at(-1)!)).toMatchObject({ error: { type: 'timeout_idle' } });
  });
});
