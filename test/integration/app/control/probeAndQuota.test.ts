import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestPage } from '../../../../proxy/contracts/requests.ts';
import type { StatusResponse } from '../../../../proxy/contracts/status.ts';
import { setUpMainProfileAndAgent, startControlHarness, type ControlHarness } from '../../../support/controlHarness.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../../support/http.ts';

/** Issue 18: Claude Code's start-up probe is not a request (item 16); an empty balance is an alarm (item 4). */

let harness: ControlHarness;
let clientToken = '';

async function call<T>(pathAndQuery: string): Promise<T> {
  return (await (await harness.api(pathAndQuery)).json()) as T;
}

const chat = () =>
  rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${clientToken}` },
    body: chatBody(),
  });

beforeAll(async () => {
  harness = await startControlHarness({ simulator: { dialect: 'new-api' } });
  clientToken = await setUpMainProfileAndAgent(harness);
});

afterAll(async () => {
  await harness?.close();
});

describe('a HEAD probe without a token (item 16)', () => {
  it('is answered, and leaves no row in the log', async () => {
    const probe = await rawRequest(`${harness.proxy.url}/v1`, { method: 'HEAD' });
    expect(probe.status).toBe(401);
    expect((await chat()).status).toBe(200);
    await harness.log.flush();
    const page = await call<RequestPage>('/requests?limit=10');
    expect(page.items.map((item) => item.method)).toEqual(['POST']);
  });
});

describe('an empty balance (item 4)', () => {
  it('raises an alarm that says to top up, until a request on the profile succeeds again', async () => {
    harness.simulator.script({ kind: 'quota' });
    const refused = await chat();
    expect(refused.status).toBe(402);
    const alarms = (await call<StatusResponse>('/status')).alarms;
    const alarm = alarms.find((candidate) => candidate.kind === 'quota_exhausted');
    expect(alarm).toMatchObject({ profileId: 'main' });
    expect(alarm?.message).toMatch(/top it up/);
    // A rejected key is a different alarm: the key is fine.
    expect(alarms.map((candidate) => candidate.kind)).not.toContain('key_rejected');

    expect((await chat()).status).toBe(200);
    expect((await call<StatusResponse>('/status')).alarms.map((candidate) => candidate.kind)).not.toContain('quota_exhausted');
  });
});
