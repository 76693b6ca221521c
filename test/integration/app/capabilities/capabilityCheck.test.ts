import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCapabilityService, CAPABILITIES_FILE_NAME } from '../../../../proxy/app/capabilities/capabilityService.ts';
import { profileSchema } from '../../../../proxy/contracts/profile.ts';
import { startGatewaySimulator, type GatewaySimulator } from '../../../simulator/index.ts';
import { SECOND_SENTINEL_KEY, SENTINEL_KEY } from '../../../support/sentinel.ts';

let simulator: GatewaySimulator;
let dataDir: string;

beforeAll(async () => {
  simulator = await startGatewaySimulator();
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-capabilities-'));
});
afterAll(async () => {
  await simulator.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the capability check against a Chat-Completions-only gateway', () => {
  it('finds chat, streaming, tools and images, and no native Anthropic or Responses API', async () => {
    const profile = profileSchema.parse({ id: 'sim', name: 'Simulator', baseUrl: simulator.baseUrl });
    const reports: string[] = [];
    const report = (message: string): void => {
      reports.push(message);
    };
    const service = createCapabilityService({ dataDir, resolveTarget: () => ({ profile, apiKey: SENTINEL_KEY }), report });
    const badges = await service.check('sim', 'gpt-4o-mini');
    expect(Object.fromEntries(badges.map((badge) => [badge.capability, badge.supported]))).toEqual({
      chat: true,
      stream: true,
      tools: true,
      image_input: true,
      messages_native: false,
      responses_native: false,
    });
    expect(service.nativeVerified('sim', 'messages', 'gpt-4o-mini')).toBe(false);
    const reopened = createCapabilityService({ dataDir, resolveTarget: () => null, report });
    expect(reopened.badges('sim', 'gpt-4o-mini')).toEqual(badges);
    expect(readFileSync(path.join(dataDir, CAPABILITIES_FILE_NAME), 'utf8')).not.toContain(SENTINEL_KEY);
    expect(reports).toEqual([]);
  });
});

describe("the profile's key changed while a capability check runs (its probes go one after another)", () => {
  const MAX_TOKENS_REFUSED = JSON.stringify({
    error: {
      message: "Unsupported parameter: 'max_tokens' is not supported with this model.",
      param: 'max_tokens',
      code: 'unsupported_parameter',
    },
  });
  /** A check whose first probe is answered only once `change` has run on the key the service resolves. */
  async function changeKeyDuringCheck(profileId: string, change: (keys: { set: (key: string | null) => void }) => void) {
    simulator.reset();
    const profile = profileSchema.parse({ id: profileId, name: 'Simulator', baseUrl: simulator.baseUrl });
    let key: string | null = SENTINEL_KEY;
    const service = createCapabilityService({
      dataDir,
      // As the target resolver gives it: the key of the request's start, and the profile's key as it is now.
      resolveTarget: () => (key === null ? null : { profile, apiKey: key, keyNow: () => key }),
      report: () => undefined,
    });
    let endFirst: () => void = () => undefined;
    const firstEnds = new Promise<void>((resolve) => (endFirst = resolve));
    // A 400 for max_tokens: the probe is sent again renamed once it came, after the change.
    simulator.script({
      kind: 'text',
      status: 400,
      text: MAX_TOKENS_REFUSED,
      contentType: 'application/json',
      pausedAt: { byte: 0, until: firstEnds },
    });
    const checking = service.check(profileId, 'gpt-4o-mini');
    await expect.poll(() => simulator.received.length).toBe(1);
    change({ set: (next) => (key = next) });
    endFirst();
    const badges = await checking;
    return { badges, sentKeys: simulator.received.map((received) => String(received.headers.authorization).slice(-4)) };
  }

  it('a removed key: no later probe is sent with it, and what was not checked stays unknown', async () => {
    const { badges, sentKeys } = await changeKeyDuringCheck('removed', ({ set }) => set(null));
    expect(sentKeys).toEqual([SENTINEL_KEY.slice(-4)]);
    expect(badges.map((badge) => badge.supported)).toEqual([null, null, null, null, null, null]);
  });

  it('a replaced key: the later probes go with the new one', async () => {
    const { sentKeys } = await changeKeyDuringCheck('replaced', ({ set }) => set(SECOND_SENTINEL_KEY));
    // The renamed probe too.
    expect(sentKeys).toEqual([SENTINEL_KEY.slice(-4), ...Array(6).fill(SECOND_SENTINEL_KEY.slice(-4))]);
  });
});
