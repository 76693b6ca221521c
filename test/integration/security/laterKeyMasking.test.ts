import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TokenSecretResponse } from '../../../proxy/contracts/clientTokens.ts';
import type { RequestPage } from '../../../proxy/contracts/requests.ts';
import { runAirlock } from '../../support/cliHarness.ts';
import { type ControlHarness, setUpMainProfileAndAgent, startControlHarness } from '../../support/controlHarness.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { findSentinel } from '../../support/sentinel.ts';

/**
 * A gateway key Airlock learns only after a request quoted it (a user pasted it into a prompt, then
 * set it). Short and plain, as some gateways' keys are: no shape gives it away, so only knowing it
 * masks it, and the row was written before Airlock knew it.
 */
const LATER_KEY = 'gwLATERsentinelKey8Zp4';

let harness: ControlHarness;
let loggedBeforeKeySet: Promise<string> | null = null;

beforeAll(async () => {
  harness = await startControlHarness();
});

/** The request quoting the key, logged and ended, then the key set; once for both tests (a poll runs only inside a test). */
function requestLoggedThenKeySet(): Promise<string> {
  loggedBeforeKeySet ??= logThenSetKey();
  return loggedBeforeKeySet;
}

async function logThenSetKey(): Promise<string> {
  const token = await setUpMainProfileAndAgent(harness);
  const answer = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
    body: chatBody({ messages: [{ role: 'user', content: `My new gateway key is ${LATER_KEY}: write the config for it` }] }),
  });
  expect(answer.status).toBe(200);
  const requestId = (await harness.loggedDetail(answer)).row.id;
  // A client that put it in the path too (a query parameter), which the filters' endpoint menu lists.
  const inPath = await rawRequest(`${harness.proxy.url}/v1/chat/completions?note=${LATER_KEY}`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
    body: chatBody(),
  });
  await harness.loggedDetail(inPath);
  // Not a secret yet: the request shows it as it was sent.
  expect(findSentinel(await (await harness.api(`/requests/${requestId}`)).text(), LATER_KEY)).not.toBeNull();

  // Then the user sets it, as the key of a second profile.
  await harness.json('/profiles', {
    method: 'POST',
    body: JSON.stringify({ id: 'spare', name: 'Spare', baseUrl: harness.simulator.baseUrl }),
  });
  await harness.json('/profiles/spare/key', { method: 'PUT', body: JSON.stringify({ key: LATER_KEY }) });
  return requestId;
}

afterAll(async () => {
  await harness?.close();
});

describe('a key learned after a row was written', () => {
  it("is masked in the window's request list, detail and bodies", async () => {
    const requestId = await requestLoggedThenKeySet();
    const list = await harness.json<RequestPage>('/requests');
    expect(list.items.map((item) => item.id)).toContain(requestId);
    const texts = [
      JSON.stringify(list),
      await (await harness.api(`/requests/${requestId}`)).text(),
      await (await harness.api(`/requests/${requestId}/body/request`)).text(),
      await (await harness.api('/agent-sessions')).text(),
      await (await harness.api('/requests/facets')).text(),
    ];
    for (const text of texts) expect(findSentinel(text, LATER_KEY)).toBeNull();
    expect(texts[1]).toContain('My new gateway key is [redacted]');
  });

  it('is masked in what the CLI reads from the log: request, export and sessions', async () => {
    const requestId = await requestLoggedThenKeySet();
    const request = await runAirlock(harness.dataDir, harness.secrets, ['request', requestId, '--json']);
    expect(request.exitCode).toBe(0);
    expect(request.stdout).toContain(requestId);
    const har = await runAirlock(harness.dataDir, harness.secrets, ['export', 'requests', '--format', 'har']);
    expect(har.exitCode).toBe(0);
    expect(har.stdout).toContain('My new gateway key is [redacted]');
    const csv = await runAirlock(harness.dataDir, harness.secrets, ['export', 'requests', '--format', 'csv']);
    const sessions = await runAirlock(harness.dataDir, harness.secrets, ['sessions']);
    for (const run of [request, har, csv, sessions]) {
      expect(findSentinel(run.stdout + run.stderr, LATER_KEY)).toBeNull();
    }
  });

  it('is masked in what the CLI reads when its environment holds it as a trace export header value', async () => {
    // `airlock serve` masks the OTLP header values from its environment (environmentHeaderSecrets); the CLI,
    // run in the same environment, must know them too, or a row quoting one prints it.
    const headerSecret = 'otlpHEADERsentinel7Qw3';
    await requestLoggedThenKeySet();
    const { token } = await harness.json<TokenSecretResponse>('/tokens', { method: 'POST', body: JSON.stringify({ name: 'tracing' }) });
    const answer = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
      body: chatBody({ messages: [{ role: 'user', content: `The tracing header is ${headerSecret}` }] }),
    });
    expect(answer.status).toBe(200);
    const requestId = (await harness.loggedDetail(answer)).row.id;
    const env = { OTEL_EXPORTER_OTLP_HEADERS: `x-honeycomb-team=${headerSecret}` };
    const request = await runAirlock(harness.dataDir, harness.secrets, ['request', requestId, '--json'], '', undefined, env);
    expect(request.exitCode).toBe(0);
    expect(request.stdout).toContain('The tracing header is [redacted]');
    const har = await runAirlock(harness.dataDir, harness.secrets, ['export', 'requests', '--format', 'har'], '', undefined, env);
    for (const run of [request, har]) expect(findSentinel(run.stdout + run.stderr, headerSecret)).toBeNull();
  });
});
