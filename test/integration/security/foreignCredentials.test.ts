import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FOREIGN_CREDENTIAL_HEADERS } from '../../../proxy/forward/headers.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { type Harness, startHarness } from '../../support/proxyHarness.ts';

/** A key for another service (Google's shape): Airlock does not know it, so no masking would catch it. */
const FOREIGN_KEY = 'AIzaSyFOREIGN-sentinel-7Qx2b9Lm4Tz8Wc1Vd6';

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(() => harness.close());

describe("a key the client's tool sends for another service", () => {
  it.each([...FOREIGN_CREDENTIAL_HEADERS, 'X-Goog-Api-Key'])('in %s never reaches the gateway nor the log', async (header) => {
    harness.simulator.reset();
    const ended = harness.nextEnd();
    const response = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, [header]: FOREIGN_KEY },
      body: chatBody(),
    });
    expect(response.status, response.body).toBe(200);
    const end = await ended;
    const sent = harness.simulator.received[0]!;
    expect(sent.authOk).toBe(true);
    expect(Object.keys(sent.headers)).not.toContain(header.toLowerCase());
    expect(JSON.stringify(sent.headers)).not.toContain(FOREIGN_KEY);
    const logged = harness.events.filter((event) => event.requestId === end.requestId);
    expect(JSON.stringify(logged)).not.toContain(FOREIGN_KEY);
  });

  it("leaves OpenAI's organization and project ids, which choose whose quota counts, to the gateway", async () => {
    harness.simulator.reset();
    const ended = harness.nextEnd();
    const response = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, 'openai-organization': 'org-sentinel', 'openai-project': 'proj_sentinel' },
      body: chatBody(),
    });
    expect(response.status, response.body).toBe(200);
    await ended;
    expect(harness.simulator.received[0]!.headers).toMatchObject({
      'openai-organization': 'org-sentinel',
      'openai-project': 'proj_sentinel',
    });
  });
});
