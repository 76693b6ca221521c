import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chatAnswerText } from '../../support/http.ts';
import { sdkChatFailure } from '../../support/sdkChat.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';

/**
 * A whole JSON answer cut short (a relay that ends its body in order when its copy broke, or one
 * that keeps a compressed Content-Length for a decompressed body: then every answer is cut the
 * same way). The model ran and the gateway billed it, so an SDK that resends by itself pays again
 * on every attempt: the OpenAI SDK twice more, Claude Code's up to ten. Airlock says
 * `x-should-retry: false`, and the error's fix leaves the resend to the user.
 */
let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => {
  await harness.close();
});
beforeEach(() => harness.simulator.reset());

describe('a whole JSON answer cut short', () => {
  it('is sent once: the SDK does not resend a request the gateway ran and billed', async () => {
    const whole = chatAnswerText('A long answer.');
    harness.simulator.script({ kind: 'text', status: 200, contentType: 'application/json', text: whole.slice(0, 80) });
    const ended = harness.nextEnd();
    const failure = await sdkChatFailure(harness.proxy.url);
    expect(failure?.status).toBe(502);
    expect(failure?.headers?.get('x-should-retry')).toBe('false');
    expect((await ended).errorClass).toBe('stream_interrupted');
    expect(harness.simulator.received).toHaveLength(1);
  });
});
