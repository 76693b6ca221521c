import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LiveFrame } from '../../../../proxy/contracts/liveEvents.ts';
import type { StatusResponse } from '../../../../proxy/contracts/status.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../../support/http.ts';
import { setUpMainProfileAndAgent, startControlHarness, type ControlHarness } from '../../../support/controlHarness.ts';

// An edit of airlock.json by hand while Airlock runs that the file's schema refuses: the proxy
// keeps serving on the settings it last read, and the window says so at once, naming the line and
// the field, until the file is fixed.

let harness: ControlHarness;
let clientToken: string;
const frames: LiveFrame[] = [];
const stopFeed = new AbortController();

beforeAll(async () => {
  harness = await startControlHarness();
  clientToken = await setUpMainProfileAndAgent(harness);
  const feed = await harness.api('/events', { signal: stopFeed.signal });
  const reader = feed.body!.pipeThrough(new TextDecoderStream()).getReader();
  void (async () => {
    let buffered = '';
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) return;
      buffered += value;
      const messages = buffered.split('\n\n');
      buffered = messages.pop() ?? '';
      for (const message of messages) {
        const data = message.split('\n').find((line) => line.startsWith('data: '));
        if (data) frames.push(JSON.parse(data.slice(6)) as LiveFrame);
      }
    }
  })();
});

afterAll(async () => {
  stopFeed.abort();
  await harness?.close();
});

const configPath = (): string => path.join(harness.dataDir, 'airlock.json');
const latestStatus = (): StatusResponse | undefined => frames.findLast((frame) => frame.status !== null)?.status ?? undefined;
const configAlarm = (status: StatusResponse | undefined) => status?.alarms.find((alarm) => alarm.kind === 'config_invalid');

describe('airlock.json edited by hand into something the schema refuses', () => {
  it('keeps serving with the last good settings and pushes an alarm naming the line and field, gone once fixed', async () => {
    await expect.poll(() => latestStatus()?.activeProfile?.id).toBe('main');
    const good = readFileSync(configPath(), 'utf8');
    // A misspelt setting (maxRequestBodyMb for maxRequestBodyMiB), as a user would type it.
    const misspelt = good.replace('"maxRequestBodyMiB": 64', '"maxRequestBodyMb": 10');
    expect(misspelt).not.toBe(good);
    writeFileSync(configPath(), misspelt);
    const line = misspelt.split('\n').findIndex((text) => text.includes('maxRequestBodyMb')) + 1;

    await expect.poll(() => configAlarm(latestStatus())?.message).toContain(`profiles[0].maxRequestBodyMb (line ${line})`);
    expect(configAlarm(latestStatus())?.message).toMatch(/keeps using the settings it last read/);

    const reply = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${clientToken}` },
      body: chatBody(),
    });
    expect(reply.status).toBe(200);
    // Nothing was wiped: the user's text stays as they wrote it.
    expect(readFileSync(configPath(), 'utf8')).toBe(misspelt);

    writeFileSync(configPath(), good);
    await expect.poll(() => latestStatus() !== undefined && configAlarm(latestStatus()) === undefined).toBe(true);
    const status = await harness.json<StatusResponse>('/status');
    expect(configAlarm(status)).toBeUndefined();
  });
});
