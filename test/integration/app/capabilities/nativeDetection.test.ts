import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createCapabilityService, type CapabilityService } from '../../../../proxy/app/capabilities/capabilityService.ts';
import type { ProfileInput } from '../../../../proxy/contracts/profile.ts';
import { JSON_HEADERS, rawRequest } from '../../../support/http.ts';
import { startHarness, type Harness } from '../../../support/proxyHarness.ts';
import { SENTINEL_KEY } from '../../../support/sentinel.ts';

/**
 * In `auto` mode Airlock finds out by itself whether the gateway speaks Messages and Responses:
 * the first such request for a model is translated and sets off one probe of that protocol in the
 * background; once the gateway has answered it in the protocol's own shape, later requests go native.
 */
let harness: Harness | null = null;
let dataDir: string | null = null;
/** What the service said went wrong: nothing, in these tests. */
let reports: string[] = [];

afterEach(async () => {
  expect(reports).toEqual([]);
  reports = [];
  await harness?.close();
  harness = null;
  if (dataDir !== null) rmSync(dataDir, { recursive: true, force: true });
});

async function start(
  nativeProtocols: Array<'messages' | 'responses'>,
  protocolModes: ProfileInput['protocolModes'],
): Promise<CapabilityService> {
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-native-detection-'));
  let service: CapabilityService | null = null;
  harness = await startHarness({
    simulator: { nativeProtocols },
    profile: { protocolModes },
    nativeVerified: (profileId, protocol, model) => service?.nativeVerified(profileId, protocol, model) ?? false,
  });
  const { profile } = harness;
  service = createCapabilityService({
    dataDir,
    resolveTarget: () => ({ profile, apiKey: SENTINEL_KEY }),
    report: (message) => reports.push(message),
  });
  return service;
}

const messages = () =>
  rawRequest(`${harness!.proxy.url}/v1/messages`, {
    method: 'POST',
    headers: JSON_HEADERS,
    body: JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }),
  });
const responses = () =>
  rawRequest(`${harness!.proxy.url}/v1/responses`, {
    method: 'POST',
    headers: JSON_HEADERS,
    body: JSON.stringify({ model: 'gpt-4o-mini', input: 'hi', store: false }),
  });
const pathsReceived = () => harness!.simulator.received.map((request) => request.path);

describe('native detection in auto mode', () => {
  it.each([
    ['messages', messages, '/v1/messages', 'messages_native'],
    ['responses', responses, '/v1/responses', 'responses_native'],
  ] as const)(
    'a gateway that speaks %s natively is used natively once one probe has shown it',
    async (protocol, send, nativePath, capability) => {
      const service = await start([protocol], { messages: 'auto', responses: 'auto' });
      expect((await send()).status).toBe(200);
      await expect.poll(() => service.badges('test', 'gpt-4o-mini').find((badge) => badge.capability === capability)?.supported).toBe(true);
      // The first request was translated; the probe (sent while it was planned) is the one native request.
      expect(pathsReceived().sort()).toEqual(['/v1/chat/completions', nativePath].sort());

      expect((await send()).status).toBe(200);
      expect(pathsReceived().filter((received) => received === nativePath)).toHaveLength(2);
      expect(pathsReceived().filter((received) => received === '/v1/chat/completions')).toHaveLength(1);
    },
  );

  it('a Chat-Completions-only gateway is probed once, and its requests stay translated', async () => {
    const service = await start([], { messages: 'auto', responses: 'auto' });
    await messages();
    await expect
      .poll(() => service.badges('test', 'gpt-4o-mini').find((badge) => badge.capability === 'messages_native')?.supported)
      .toBe(false);
    await messages();
    await messages();
    expect(pathsReceived().sort()).toEqual(['/v1/chat/completions', '/v1/chat/completions', '/v1/chat/completions', '/v1/messages']);
  });

  it('a profile that chose its mode is never probed', async () => {
    const service = await start(['messages'], { messages: 'translate', responses: 'native' });
    await messages();
    await messages();
    expect(pathsReceived()).toEqual(['/v1/chat/completions', '/v1/chat/completions']);
    expect(service.badges('test', 'gpt-4o-mini').every((badge) => badge.supported === null)).toBe(true);
  });
});
