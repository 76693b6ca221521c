import { afterEach, describe, expect, it } from 'vitest';
import type { Profile } from '../../../proxy/contracts/profile.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';
import { stalledError, stalledUpload } from '../../support/stalledUpload.ts';

// A client that stalls while its large body is sent on as it arrives (proxy/forward/arrivingBody.ts):
// the exchange's total clock runs meanwhile, and what runs out is the client's upload, not the gateway.
// (The idle clock does not: undici's headers timer passes over a request whose body is still being
// written unless the gateway stopped reading it, undici lib/dispatcher/client-h1.js onParserTimeout.)
// The total timeout is the profile's smallest (1 s), so the case ends by itself.
const MIB = 1024 * 1024;
const body = Buffer.from(`{"model":"text-embedding-3-small","input":"${'x'.repeat(2 * MIB)}"}`);

let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

describe('a client that stalls mid-upload while its body is sent on', () => {
  it('is answered that its upload stalled when the total timeout runs out, not that the gateway took too long', async () => {
    harness = await startHarness({ profile: { timeouts: { totalTimeoutMs: 1000 } as Profile['timeouts'], retry: { maxRetries: 1 } } });
    const ended = harness.nextEnd();
    const running = harness;
    const answer = await stalledUpload(running, body, () => running.simulator.nextBodyStart('/embeddings'));
    const error = stalledError(answer, body);
    expect(error.message).toContain("the profile's total timeout (1000 ms)");
    expect(answer.text).not.toContain(SENTINEL_KEY);
    const end = await ended;
    expect(end).toMatchObject({ status: 408, errorClass: 'upload_stalled', usage: null, costCredits: null });
    expect(end.bodies.requestBodyTruncated).toBe(true);
    // Not retried: the gateway saw the one request, stopped short.
    await harness.simulator.waitForClose(0, 5000);
    expect(harness.simulator.received).toHaveLength(1);
  });
});
