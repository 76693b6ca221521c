import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CAPABILITIES_FILE_NAME, createCapabilityService } from '../../../../proxy/app/capabilities/capabilityService.ts';
import { startAirlock } from '../../../../proxy/app/startAirlock.ts';
import { profileSchema } from '../../../../proxy/contracts/profile.ts';
import { startGatewaySimulator, type GatewaySimulator } from '../../../simulator/index.ts';
import { memorySecretStore } from '../../../support/memorySecretStore.ts';
import { SENTINEL_KEY } from '../../../support/sentinel.ts';

/**
 * A capabilities.json Airlock cannot wholly read (torn, edited by hand, written by another version)
 * is the user's check results: it is moved aside as it was, never written over, what could be read
 * is used, and the start says so, as for reasoning-effort-refusals.json.
 */
const MODEL = 'gpt-4o-mini';
const CHECKED_AT_MS = 1_700_000_000_000;
const toolsResult = [{ capability: 'tools', supported: true, checkedAtMs: CHECKED_AT_MS }];

let simulator: GatewaySimulator;
let dataDir: string;
let reports: string[];

beforeAll(async () => {
  simulator = await startGatewaySimulator();
});
afterAll(async () => {
  await simulator.close();
});
beforeEach(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-capabilities-file-'));
  reports = [];
});
afterEach(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

function openService() {
  const profile = profileSchema.parse({ id: 'sim', name: 'Simulator', baseUrl: simulator.baseUrl });
  return createCapabilityService({
    dataDir,
    resolveTarget: () => ({ profile, apiKey: SENTINEL_KEY }),
    report: (message) => reports.push(message),
  });
}

/** Files in the data directory set aside from capabilities.json, with their text. */
function setAside(): Record<string, string> {
  const names = readdirSync(dataDir).filter((name) => name.startsWith('capabilities') && name !== CAPABILITIES_FILE_NAME);
  return Object.fromEntries(names.map((name) => [name, readFileSync(path.join(dataDir, name), 'utf8')]));
}

describe('a capabilities.json Airlock cannot read', () => {
  it.each([
    ['damaged', '{"version": 1, "profiles": {"sim": {', /damaged/],
    ['foreign', JSON.stringify({ version: 2, results: { sim: { [MODEL]: 'all' } } }), /not one this Airlock writes/],
  ])('%s: is kept aside as it was, never written over, and said', async (_kind, text, wording) => {
    writeFileSync(path.join(dataDir, CAPABILITIES_FILE_NAME), text);

    const service = openService();
    expect(service.startNotice).toMatch(wording);
    expect(Object.values(setAside())).toEqual([text]);
    expect(service.startNotice).toContain(Object.keys(setAside())[0]);
    expect(service.badges('sim', MODEL).every((badge) => badge.supported === null)).toBe(true);

    // A check writes a new file; the one set aside stays as it was.
    const badges = await service.check('sim', MODEL);
    expect(Object.values(setAside())).toEqual([text]);
    expect(openService().badges('sim', MODEL)).toEqual(badges);
    expect(reports).toEqual([]);
  });

  it('with one result damaged: uses the others, keeps the file as it was aside, and says how many it left out', () => {
    const text = JSON.stringify({
      version: 1,
      profiles: { sim: { [MODEL]: toolsResult, 'gpt-4o': [{ capability: 'tools', supported: 'yes', checkedAtMs: CHECKED_AT_MS }] } },
    });
    writeFileSync(path.join(dataDir, CAPABILITIES_FILE_NAME), text);

    const service = openService();
    expect(service.startNotice).toMatch(/1 of its 2/);
    expect(service.badges('sim', MODEL)).toEqual(toolsResult);
    expect(service.badges('sim', 'gpt-4o').every((badge) => badge.supported === null)).toBe(true);
    expect(Object.values(setAside())).toEqual([text]);
  });

  it('a whole file is read as it is, with no notice and nothing set aside', () => {
    const text = JSON.stringify({ version: 1, profiles: { sim: { [MODEL]: toolsResult } } });
    writeFileSync(path.join(dataDir, CAPABILITIES_FILE_NAME), text);

    const service = openService();
    expect(service.startNotice).toBeNull();
    expect(service.badges('sim', MODEL)).toEqual(toolsResult);
    expect(setAside()).toEqual({});
  });

  it('that cannot be read for now (EIO, EMFILE, EACCES; here EISDIR) is left where it is, never written over this run, and said', async () => {
    // A directory where the file goes: reading it fails, as a disk error or too many open files would.
    mkdirSync(path.join(dataDir, CAPABILITIES_FILE_NAME));

    const service = openService();
    expect(service.startNotice).toMatch(/could not be read \(EISDIR\)/);
    expect(service.startNotice).toMatch(/left as it was/);
    expect(setAside()).toEqual({});
    expect(statSync(path.join(dataDir, CAPABILITIES_FILE_NAME)).isDirectory()).toBe(true);
    // Nothing is written over it: a check's results are kept in memory, no failure said.
    const badges = await service.check('sim', MODEL);
    expect(service.badges('sim', MODEL)).toEqual(badges);
    expect(reports).toEqual([]);
  });

  it("is among Airlock's start notices", async () => {
    writeFileSync(path.join(dataDir, CAPABILITIES_FILE_NAME), '{"version": 1, "prof');
    const airlock = await startAirlock({ dataDir, port: 0, env: {}, secrets: memorySecretStore({}) });
    try {
      const notice = airlock.notices.find((line) => line.includes(CAPABILITIES_FILE_NAME));
      expect(notice).toContain(Object.keys(setAside())[0]);
    } finally {
      await airlock.stop();
    }
  });
});

describe("a client's model named like an object's own property", () => {
  it.each(['constructor', 'toString', '__proto__', 'hasOwnProperty'])(
    '%s: is an unchecked model like any other, and its results are kept as its own',
    async (model) => {
      writeFileSync(
        path.join(dataDir, CAPABILITIES_FILE_NAME),
        JSON.stringify({ version: 1, profiles: { sim: { [MODEL]: toolsResult } } }),
      );
      const service = openService();
      expect(service.badges('sim', model).every((badge) => badge.supported === null)).toBe(true);
      expect(service.badges('other', model).every((badge) => badge.supported === null)).toBe(true);
      expect(service.nativeVerified('sim', 'messages', model)).toBe(false);

      const badges = await service.check('sim', model);
      expect(service.badges('sim', model)).toEqual(badges);
      expect(openService().badges('sim', model)).toEqual(badges);
      expect(openService().badges('sim', MODEL)).toEqual(toolsResult);
    },
  );
});
