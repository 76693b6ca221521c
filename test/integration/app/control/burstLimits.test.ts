import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiErrorBody } from '../../../../proxy/contracts/controlApi.ts';
import type { BurstLimits } from '../../../../proxy/contracts/config.ts';
import type { TokenListResponse } from '../../../../proxy/contracts/clientTokens.ts';
import { runAirlock } from '../../../support/cliHarness.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../../support/http.ts';
import { memorySecretStore } from '../../../support/memorySecretStore.ts';
import { setUpMainProfileAndAgent, startControlHarness, type ControlHarness } from '../../../support/controlHarness.ts';

let harness: ControlHarness;
let clientToken = '';

const put = (body: unknown): RequestInit => ({ method: 'PUT', body: JSON.stringify(body) });

async function limitsNow(): Promise<BurstLimits> {
  return (await (await harness.api('/burst-limits')).json()) as BurstLimits;
}

beforeAll(async () => {
  harness = await startControlHarness();
  clientToken = await setUpMainProfileAndAgent(harness);
});

afterAll(async () => {
  await harness?.close();
});

describe('burst limits in the control API', () => {
  it('starts at the defaults', async () => {
    expect(await limitsNow()).toEqual({ maxRequestsPerMinute: 120, maxCreditsPerMinute: 5 });
  });

  it.each([
    { name: 'zero requests', body: { maxRequestsPerMinute: 0, maxCreditsPerMinute: 5 }, message: 'maxRequestsPerMinute: must be above 0' },
    {
      name: 'a fraction of a request',
      body: { maxRequestsPerMinute: 2.5, maxCreditsPerMinute: 5 },
      message: 'maxRequestsPerMinute: must be a whole number',
    },
    {
      name: 'negative credits',
      body: { maxRequestsPerMinute: 10, maxCreditsPerMinute: -1 },
      message: 'maxCreditsPerMinute: must be above 0',
    },
    {
      name: 'credits as text',
      body: { maxRequestsPerMinute: 10, maxCreditsPerMinute: 'lots' },
      message: 'maxCreditsPerMinute: must be a number',
    },
    { name: 'no limit at all', body: {}, message: 'give at least one of maxRequestsPerMinute, maxCreditsPerMinute' },
  ])('refuses $name with a message naming the field, and keeps the limits', async ({ body, message }) => {
    const response = await harness.api('/burst-limits', put(body));
    expect(response.status).toBe(400);
    expect(((await response.json()) as ApiErrorBody).error.message).toBe(message);
    expect(await limitsNow()).toEqual({ maxRequestsPerMinute: 120, maxCreditsPerMinute: 5 });
  });

  it('saves new limits to the config file, and the running proxy pauses a client past them at once', async () => {
    const response = await harness.api('/burst-limits', put({ maxRequestsPerMinute: 2, maxCreditsPerMinute: 7.5 }));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ maxRequestsPerMinute: 2, maxCreditsPerMinute: 7.5 });
    const onDisk = JSON.parse(readFileSync(path.join(harness.dataDir, 'airlock.json'), 'utf8')) as {
      settings: { burstLimits: BurstLimits };
    };
    expect(onDisk.settings.burstLimits).toEqual({ maxRequestsPerMinute: 2, maxCreditsPerMinute: 7.5 });

    const send = () =>
      rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { ...JSON_HEADERS, authorization: `Bearer ${clientToken}` },
        body: chatBody(),
      });
    const statuses = [(await send()).status, (await send()).status, (await send()).status];
    expect(statuses).toEqual([200, 200, 403]);
    const tokens = (await (await harness.api('/tokens')).json()) as TokenListResponse;
    expect(tokens.tokens.find((token) => token.name === 'agent')?.paused).toBe(true);
  });

  it('saves only the limit it is sent: a window filled before `airlock limits` changed the other one does not undo it', async () => {
    const cli = await runAirlock(harness.dataDir, memorySecretStore(), ['limits', '--credits-per-minute', '40']);
    expect(cli.exitCode).toBe(0);

    // The window was filled with the credits as they were and the user changed only the requests.
    const response = await harness.api('/burst-limits', put({ maxRequestsPerMinute: 300 }));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ maxRequestsPerMinute: 300, maxCreditsPerMinute: 40 });
    expect(harness.store.snapshot().settings.burstLimits).toEqual({ maxRequestsPerMinute: 300, maxCreditsPerMinute: 40 });
  });
});
