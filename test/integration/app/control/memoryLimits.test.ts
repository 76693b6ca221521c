import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiErrorBody } from '../../../../proxy/contracts/controlApi.ts';
import type { MemoryLimits } from '../../../../proxy/contracts/config.ts';
import type { RequestDetail } from '../../../../proxy/contracts/requests.ts';
import { runAirlock } from '../../../support/cliHarness.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../../support/http.ts';
import { memorySecretStore } from '../../../support/memorySecretStore.ts';
import { setUpMainProfileAndAgent, startControlHarness, type ControlHarness } from '../../../support/controlHarness.ts';

let harness: ControlHarness;
let clientToken = '';

const put = (body: unknown): RequestInit => ({ method: 'PUT', body: JSON.stringify(body) });
const limitsNow = async (): Promise<MemoryLimits> => (await (await harness.api('/settings/memory')).json()) as MemoryLimits;

beforeAll(async () => {
  harness = await startControlHarness();
  clientToken = await setUpMainProfileAndAgent(harness);
});

afterAll(async () => {
  await harness?.close();
});

/** Sends a chat request whose body is `bytes` long, and returns its logged detail. */
async function loggedRequestOf(bytes: number): Promise<RequestDetail> {
  const padding = 'x'.repeat(bytes - chatBody({ messages: [{ role: 'user', content: '' }] }).length);
  const body = chatBody({ messages: [{ role: 'user', content: padding }] });
  expect(body.length).toBe(bytes);
  const response = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${clientToken}` },
    body,
  });
  expect(response.status).toBe(200);
  const id = String(response.headers['x-airlock-request-id']);
  return (await (await harness.api(`/requests/${id}`)).json()) as RequestDetail;
}

describe('memory limits in the control API', () => {
  it('starts at the defaults', async () => {
    expect(await limitsNow()).toEqual({ logBacklogMiB: 64, bodyCaptureKiB: 1024 });
  });

  it.each([
    { name: 'a tiny backlog', body: { logBacklogMiB: 1, bodyCaptureKiB: 1024 }, message: 'logBacklogMiB: must be at least 8' },
    { name: 'a huge capture', body: { logBacklogMiB: 64, bodyCaptureKiB: 100_000 }, message: 'bodyCaptureKiB: must be at most 16384' },
    { name: 'a capture as text', body: { logBacklogMiB: 64, bodyCaptureKiB: 'big' }, message: 'bodyCaptureKiB: must be a number' },
    { name: 'no limit at all', body: {}, message: 'give at least one of logBacklogMiB, bodyCaptureKiB' },
    { name: 'a field it does not know', body: { bodyCaptureKib: 16 }, message: 'Unrecognized key: "bodyCaptureKib"' },
  ])('refuses $name with a message naming the field, and keeps the limits', async ({ body, message }) => {
    const response = await harness.api('/settings/memory', put(body));
    expect(response.status).toBe(400);
    expect(((await response.json()) as ApiErrorBody).error.message).toBe(message);
    expect(await limitsNow()).toEqual({ logBacklogMiB: 64, bodyCaptureKiB: 1024 });
  });

  it('saves a smaller body capture to the config file, and the running proxy logs the next request cut at that size', async () => {
    const before = await loggedRequestOf(40_000);
    expect(before.requestBody).toMatchObject({ sizeBytes: 40_000, truncated: false });

    const response = await harness.api('/settings/memory', put({ logBacklogMiB: 32, bodyCaptureKiB: 16 }));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ logBacklogMiB: 32, bodyCaptureKiB: 16 });
    const onDisk = JSON.parse(readFileSync(path.join(harness.dataDir, 'airlock.json'), 'utf8')) as {
      settings: { memoryLimits: MemoryLimits };
    };
    expect(onDisk.settings.memoryLimits).toEqual({ logBacklogMiB: 32, bodyCaptureKiB: 16 });

    const after = await loggedRequestOf(40_000);
    expect(after.requestBody).toMatchObject({ sizeBytes: 16 * 1024, truncated: true });
  });

  it('saves only the limit it is sent: a window filled before `airlock memory` changed the other one does not undo it', async () => {
    const cli = await runAirlock(harness.dataDir, memorySecretStore(), ['memory', '--log-backlog-mib', '200']);
    expect(cli.exitCode).toBe(0);

    // The window was filled with the backlog as it was and the user changed only the capture.
    const response = await harness.api('/settings/memory', put({ bodyCaptureKiB: 512 }));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ logBacklogMiB: 200, bodyCaptureKiB: 512 });
    expect(harness.store.snapshot().settings.memoryLimits).toEqual({ logBacklogMiB: 200, bodyCaptureKiB: 512 });
  });
});
