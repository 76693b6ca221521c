import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createCapabilityService, CAPABILITIES_FILE_NAME } from '../../../../proxy/app/capabilities/capabilityService.ts';
import { profileSchema } from '../../../../proxy/contracts/profile.ts';
import { NoticeBoard } from '../../../../proxy/app/noticeBoard.ts';
import { startGatewaySimulator, type GatewaySimulator } from '../../../simulator/index.ts';
import { SENTINEL_KEY } from '../../../support/sentinel.ts';

/**
 * A capability result that cannot be written (a full disk, a data directory gone or not writable)
 * is said and kept in memory. The native probe saves in the background: a write failing there was a
 * rejection no one handled, which ends a Node 24 process (`airlock serve`); Electron's main process,
 * where the desktop app runs the proxy, only warns by default (electron/electron#36528), so there the
 * loss went unsaid.
 * The tests remove the data directory once the service has read it: the write fails as on a full
 * disk, whoever runs the tests (root may write into a read-only directory).
 */
const MODEL = 'gpt-4o-mini';

let simulator: GatewaySimulator;
let dataDir: string;
let reports: string[];
let unhandled: unknown[];
const noteUnhandled = (reason: unknown): void => {
  unhandled.push(reason);
};

beforeAll(async () => {
  simulator = await startGatewaySimulator({ nativeProtocols: ['messages'] });
});
afterAll(async () => {
  await simulator.close();
});
beforeEach(() => {
  simulator.reset();
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-capabilities-save-'));
  reports = [];
  unhandled = [];
  process.on('unhandledRejection', noteUnhandled);
});
afterEach(() => {
  process.off('unhandledRejection', noteUnhandled);
  rmSync(dataDir, { recursive: true, force: true });
});

function serviceWithUnwritableDataDir() {
  const profile = profileSchema.parse({ id: 'sim', name: 'Simulator', baseUrl: simulator.baseUrl });
  const service = createCapabilityService({
    dataDir,
    resolveTarget: () => ({ profile, apiKey: SENTINEL_KEY }),
    report: (message) => reports.push(message),
  });
  rmSync(dataDir, { recursive: true, force: true });
  return service;
}

describe('a capability result that cannot be written', () => {
  it('from the background native probe: is said, kept for this run, and the process goes on', async () => {
    const service = serviceWithUnwritableDataDir();
    expect(service.nativeVerified('sim', 'messages', MODEL)).toBe(false);
    await expect.poll(() => service.badges('sim', MODEL).find((badge) => badge.capability === 'messages_native')?.supported).toBe(true);

    expect(unhandled).toEqual([]);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toContain(path.join(dataDir, CAPABILITIES_FILE_NAME));
    expect(reports[0]).toMatch(/ENOENT/);
    expect(reports[0]).not.toContain(SENTINEL_KEY);
    expect(service.nativeVerified('sim', 'messages', MODEL)).toBe(true);
  });

  it('from a capability check: the check still answers with its results, and the failure is said', async () => {
    const service = serviceWithUnwritableDataDir();
    const badges = await service.check('sim', MODEL);

    expect(badges.find((badge) => badge.capability === 'chat')?.supported).toBe(true);
    expect(service.badges('sim', MODEL)).toEqual(badges);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toContain(path.join(dataDir, CAPABILITIES_FILE_NAME));
  });
});

describe('a save that keeps failing', () => {
  it('is one notice, not a new one (and a new OS notification) per failed save', async () => {
    const board = new NoticeBoard({ knownSecrets: () => [] });
    const profile = profileSchema.parse({ id: 'sim', name: 'Simulator', baseUrl: simulator.baseUrl });
    const service = createCapabilityService({
      dataDir,
      resolveTarget: () => ({ profile, apiKey: SENTINEL_KEY }),
      report: (message) => board.report('capabilities_not_saved', message),
    });
    rmSync(dataDir, { recursive: true, force: true });

    await service.check('sim', MODEL);
    const [first] = board.list();
    await service.check('sim', 'gpt-4o');
    expect(board.list()).toEqual([{ ...first, atMs: expect.any(Number) }]);
    // The cause still says why, in words that do not change from one failed write to the next.
    expect(first?.cause).toMatch(/ENOENT/);
  });
});
