import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCapabilityService, CAPABILITIES_FILE_NAME } from '../../../../proxy/app/capabilities/capabilityService.ts';
import { profileSchema } from '../../../../proxy/contracts/profile.ts';
import { startGatewaySimulator, type GatewaySimulator } from '../../../simulator/index.ts';
import { SENTINEL_KEY } from '../../../support/sentinel.ts';

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
