import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { explanationOf } from '../../../proxy/app/control/mapping.ts';
import { explainError } from '../../../proxy/core/errorClass.ts';
import { STREAM_ENDED_EARLY_CODE } from '../../../proxy/core/errorExplanations.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';

/**
 * Gateways that stream a request that asked for a whole answer (Airlock reads the stream whole for
 * it): one that ends that stream early, with no error, must be explained as the streamed case is,
 * to the client and in the window, not as a break whose fix is a longer idle timeout.
 */
let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(() => harness.close());

const chunk = (delta: object): string =>
  `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;

describe('a whole-answer request whose gateway streamed it and ended the stream early', () => {
  it.each([
    ['part of the answer', chunk({ role: 'assistant', content: 'Hel' }) + chunk({ content: 'lo' })],
    ['no answer at all', chunk({ role: 'assistant' })],
  ])('after %s: the early end cause and fix, to the client and in the window', async (_case, text) => {
    harness.simulator.script({ kind: 'text', status: 200, contentType: 'text/event-stream', text });
    const ended = harness.nextEnd();
    const response = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: chatBody({ stream: false }),
    });
    const end = await ended;
    const { fix } = explainError('stream_interrupted', STREAM_ENDED_EARLY_CODE);
    expect(response.status).toBe(502);
    expect(response.body).toContain(fix);
    expect(response.body).not.toContain('idleTimeoutMs');
    expect(end.errorClass).toBe('stream_interrupted');
    expect(end.errorCode).toBe(STREAM_ENDED_EARLY_CODE);
    expect(explanationOf('stream_interrupted', end.status, end.errorMessage).fix).toBe(fix);
  });
});
