import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { addClientToken, addProfile, updateProfile } from '../../../proxy/app/profiles/configMutations.ts';
import { openConfigStore } from '../../../proxy/app/profiles/configStore.ts';
import { startAirlock, type Airlock } from '../../../proxy/app/startAirlock.ts';
import { gatewayKeyAccount } from '../../../proxy/contracts/secretStore.ts';
import { generateToken, tokenRecord } from '../../../proxy/http/clientTokens.ts';
import { recordCleanClose } from '../../../proxy/store/logCheck.ts';
import { DATABASE_FILE_NAME } from '../../../proxy/store/schema.ts';
import { DAMAGED_SPEND_FILE_NAME } from '../../../proxy/store/write/unwrittenMirror.ts';
import { UNWRITTEN_SPEND_FILE_NAME } from '../../../proxy/store/write/unwrittenSpendFile.ts';
import { startGatewaySimulator, type GatewaySimulator } from '../../simulator/index.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { memorySecretStore } from '../../support/memorySecretStore.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';
import { overwrite, pageHolding, seedLog, spendRow } from './damagedLogFixture.ts';

const PAGE_BYTES = 4096;
/** Enough rows of today that their table spans many pages; one in the middle is the one damaged. */
const SEEDED = Array.from({ length: 300 }, (_, index) => spendRow(`alk_seed_${String(index).padStart(4, '0')}`, 0.01));
const DAMAGED_ROW = 'up-alk_seed_0150';

let simulator: GatewaySimulator;
let dataDir: string;
let airlock: Airlock | null = null;
const clientToken = generateToken();

beforeAll(async () => {
  simulator = await startGatewaySimulator();
});
afterAll(async () => {
  await simulator.close();
});
beforeEach(async () => {
  simulator.reset();
  dataDir = mkdtempSync(join(tmpdir(), 'airlock-damaged-running-'));
  const store = openConfigStore(dataDir);
  await store.update((config) => addProfile(config, { id: 'main', name: 'Main', baseUrl: simulator.baseUrl }, { activate: true }));
  await store.update((config) => addClientToken(config, tokenRecord('agent', clientToken, null, Date.now())));
  store.close();
});
afterEach(async () => {
  await airlock?.stop();
  airlock = null;
  rmSync(dataDir, { recursive: true, force: true });
});

async function start(): Promise<Airlock> {
  airlock = await startAirlock({ dataDir, port: 0, env: {}, secrets: memorySecretStore({ [gatewayKeyAccount('main')]: SENTINEL_KEY }) });
  return airlock;
}

const chat = (running: Airlock) =>
  rawRequest(`${running.proxy.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${clientToken}` },
    body: chatBody(),
  });

const controlGet = (running: Airlock, path: string) =>
  rawRequest(`${running.proxy.url}/_airlock/api${path}`, { headers: { authorization: `Bearer ${running.controlToken}` } });

/**
 * A page of the log overwritten under the running proxy (a disk or file system fault, another
 * program writing the file), found by the window's reads rather than by a log write: forwarding
 * goes on, the user is told, and the run does not record a clean close over the damage, which
 * made the next start skip its check and then fail on the damaged page.
 */
describe('a request log damaged while Airlock runs, found by a read of the window', () => {
  it('is said, forwarding goes on, and the next start sets it aside and keeps its spend', async () => {
    const said = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    seedLog(dataDir, { rows: SEEDED });
    const running = await start();
    expect((await chat(running)).status).toBe(200);
    await running.log.flush();

    const dbPath = join(dataDir, DATABASE_FILE_NAME);
    overwrite(dbPath, pageHolding(dbPath, DAMAGED_ROW, PAGE_BYTES), Buffer.alloc(PAGE_BYTES, 0x5a));
    expect((await controlGet(running, '/requests?limit=500')).status).toBe(500);
    // Forwarding never waits on the log.
    expect((await chat(running)).status).toBe(200);
    const told = said.mock.calls.map((call) => String(call[0])).join('\n');
    expect(told).toMatch(/request log: .*malformed.*restart/i);
    expect(running.notices.join('\n') + told).not.toContain(SENTINEL_KEY);
    // The window's status still answers (its today's spend reads the damaged page), with the damage among its alarms.
    const statusReply = await controlGet(running, '/status');
    expect(statusReply.status, statusReply.body).toBe(200);
    const status = JSON.parse(statusReply.body) as { alarms: Array<{ kind: string; message: string }>; todaySpend: { credits: number } };
    expect(status.alarms.find((alarm) => alarm.kind === 'log_degraded')?.message).toMatch(/cannot be read.*malformed.*Restart Airlock/);
    expect(status.todaySpend.credits).toBeGreaterThan(0);

    await running.stop();
    airlock = null;
    said.mockRestore();
    const restarted = await start();
    expect(restarted.logRecovery?.movedTo).toMatch(/requests-damaged-\d{8}T\d{6}Z\.db$/);
    expect(readdirSync(dataDir).some((name) => /^requests-damaged-/.test(name))).toBe(true);
    // Every seeded row but those on the damaged page is read back, so today's spend still counts them.
    expect(restarted.logRecovery?.recoveredRequests).toBeGreaterThan(SEEDED.length / 2);
    expect((await chat(restarted)).status).toBe(200);
  });
});

/**
 * The damaged page is one the log thread writes to (an index of the requests it logs): its rows are
 * refused, their spend kept as summary rows and saved. The alarm said the disk was full and to free
 * space, which changes nothing here.
 */
describe('a request log damaged while Airlock runs, found by its writes', () => {
  it('says the log is damaged and to restart, not that the disk is full', async () => {
    const said = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      seedLog(dataDir, { rows: SEEDED });
      const running = await start();
      expect((await chat(running)).status).toBe(200);
      await running.log.flush();

      // Every page of the indexes over the requests' ids: each new row's entries go to one of them.
      const dbPath = join(dataDir, DATABASE_FILE_NAME);
      const file = readFileSync(dbPath);
      for (let offset = 0; offset < file.length; offset += PAGE_BYTES) {
        const page = file.subarray(offset, offset + PAGE_BYTES).toString('latin1');
        if (page.includes('alk_seed_') && !page.includes('up-alk_seed_')) overwrite(dbPath, offset, Buffer.alloc(PAGE_BYTES, 0x5a));
      }
      for (let index = 0; index < 3; index += 1) expect((await chat(running)).status).toBe(200);
      await running.log.flush();

      const degraded = running.log.status();
      expect(degraded.unwritten?.requests).toBeGreaterThan(0);
      expect(degraded.reason).toMatch(/request log is damaged.*malformed.*Restart Airlock/);
      expect(degraded.reason).not.toMatch(/disk .* is full|Free disk space/);
    } finally {
      said.mockRestore();
    }
  });
});

/**
 * A storage fault while Airlock was stopped changes a page but not the file's size or time, so the
 * clean close recorded before it spares the start its check: the first read of the damaged page
 * (the ledger's seed of today's spend) must set the log aside then, not fail the start.
 */
describe('a request log damaged at rest after a clean close, its size and time unchanged', () => {
  it('is set aside at start, its spend read back, and Airlock forwards', async () => {
    seedLog(dataDir, { rows: SEEDED });
    await (await start()).stop();
    airlock = null;

    const dbPath = join(dataDir, DATABASE_FILE_NAME);
    overwrite(dbPath, pageHolding(dbPath, DAMAGED_ROW, PAGE_BYTES), Buffer.alloc(PAGE_BYTES, 0x5a));
    // The record now matches the file as a fault that keeps its size and time leaves it.
    recordCleanClose(dataDir, DATABASE_FILE_NAME);

    const said = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const restarted = await start();
      expect(restarted.logRecovery?.movedTo).toMatch(/requests-damaged-\d{8}T\d{6}Z\.db$/);
      expect(restarted.logRecovery?.recoveredRequests).toBeGreaterThan(SEEDED.length / 2);
      expect((await chat(restarted)).status).toBe(200);
      // The window says the log was set aside, and no longer asks for a restart that was already done.
      const status = JSON.parse((await controlGet(restarted, '/status')).body) as {
        alarms: Array<{ kind: string }>;
        notices: Array<{ kind: string }>;
      };
      expect(status.alarms.map((alarm) => alarm.kind)).toContain('log_recovered');
      expect(status.notices.map((notice) => notice.kind)).not.toContain('request_log_failed');
    } finally {
      said.mockRestore();
    }
  });
});

/**
 * One storage fault can damage the spend record beside the log too. The first log opened moved the
 * record aside and kept the loss in memory only; the seed then failed on the damaged page, and the
 * fresh log found no record: capped budgets were admitted on a ledger missing an earlier run's spend.
 */
describe('a request log damaged at rest with a damaged record of unwritten spend beside it', () => {
  it('still refuses capped budgets and says why, after the log is set aside', async () => {
    seedLog(dataDir, { rows: SEEDED });
    await (await start()).stop();
    airlock = null;
    const store = openConfigStore(dataDir);
    await store.update((config) => updateProfile(config, 'main', { budget: { monthlyCredits: 1_000 } }));
    store.close();

    const dbPath = join(dataDir, DATABASE_FILE_NAME);
    overwrite(dbPath, pageHolding(dbPath, DAMAGED_ROW, PAGE_BYTES), Buffer.alloc(PAGE_BYTES, 0x5a));
    recordCleanClose(dataDir, DATABASE_FILE_NAME);
    writeFileSync(join(dataDir, UNWRITTEN_SPEND_FILE_NAME), '{not json');

    const said = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const restarted = await start();
      expect(restarted.logRecovery?.movedTo).toMatch(/requests-damaged-/);
      const moved = join(dataDir, DAMAGED_SPEND_FILE_NAME);
      expect(restarted.log.ledgerGap(Date.now())?.reason).toContain(moved);
      // Told once, though both logs of this start found the loss.
      expect(restarted.notices.join('\n').split(`is damaged (moved to ${moved})`)).toHaveLength(2);
      const status = JSON.parse((await controlGet(restarted, '/status')).body) as { alarms: Array<{ kind: string }> };
      expect(status.alarms.map((alarm) => alarm.kind)).toContain('ledger_incomplete');
      const refused = await chat(restarted);
      expect(refused.status, refused.body).toBe(507);
      expect(JSON.parse(refused.body).error.code).toBe('ledger_incomplete');
    } finally {
      said.mockRestore();
    }
  });
});
