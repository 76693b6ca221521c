import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach } from 'vitest';
import { generateToken, tokenRecord } from '../../../proxy/http/clientTokens.ts';
import type { StatusResponse } from '../../../proxy/contracts/status.ts';
import type { Budget } from '../../../proxy/contracts/profile.ts';
import type { RequestLifecycleEvent } from '../../../proxy/contracts/lifecycle.ts';
import { DATABASE_FILE_NAME, openLogDatabase } from '../../../proxy/store/schema.ts';
import { newRequestId } from '../../../proxy/core/requestId.ts';
import { addClientToken, addProfile, updateProfile } from '../../../proxy/app/profiles/configMutations.ts';
import { openConfigStore } from '../../../proxy/app/profiles/configStore.ts';
import { startAirlock, type Airlock } from '../../../proxy/app/startAirlock.ts';
import { CONTROL_TOKEN_ACCOUNT, gatewayKeyAccount } from '../../../proxy/contracts/secretStore.ts';
import { chatBody, JSON_HEADERS, rawRequest, type RawResponse } from '../../support/http.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';
import { memorySecretStore } from '../../support/memorySecretStore.ts';
import { startGatewaySimulator, type GatewaySimulator } from '../../simulator/index.ts';

const CONTROL_TOKEN = 'alkc_control-token-for-full-disk-tests-0123456789';
/** 1 credit per 1,000 tokens: a short chat costs about a hundredth of a credit. */
const PRICES = [{ model: 'gpt-4o-mini', inputPer1M: 1_000, outputPer1M: 1_000 }];
/** Far below the database as filled: the limit is then the size it has, and it is full. */
const FULL_LOG_BYTES = 4096;
const FILLER_BLOBS = 32;
const FILLER_BLOB_BYTES = 64 * 1024;

type EndEvent = Extract<RequestLifecycleEvent, { type: 'end' }>;

/**
 * A data directory whose log database is full, as on a full disk: filled with a table of blobs
 * and opened with a size limit below its size, so SQLite refuses every new page (SQLITE_FULL).
 * Deleting the blobs from another connection frees pages inside the file: space returns.
 */
export interface FullDisk {
  dataDir: string;
  /** Client tokens: `agent` uses profile `main` (priced, capped as set), `free` uses profile `free` (priced, no cap). */
  agentToken: string;
  freeToken: string;
  start(): Promise<RunningAirlock>;
  setMainBudget(budget: Budget): Promise<void>;
  /**
   * Fills the database again while Airlock is stopped: its free pages, then the last page of
   * every index a new row would go to (rows of yesterday, no profile), so not even one row fits.
   */
  fill(): void;
  freeSpace(): void;
}

export interface RunningAirlock {
  airlock: Airlock;
  ends: EndEvent[];
  /** Sends `count` chat requests with a client token, one after another, and waits until each has ended. */
  chat(token: string, count?: number): Promise<RawResponse[]>;
  status(): Promise<StatusResponse>;
}

/** A test's full disk and the simulator its profiles point at. */
export interface FullDiskTest extends FullDisk {
  readonly simulator: GatewaySimulator;
}

/**
 * Registers the calling file's hooks: each test gets its own simulator and full disk (what the
 * returned object stands for during that test); after it, every Airlock it started is stopped
 * (stop is once, however often called: one the test stopped is passed over) and the directory removed.
 */
export function fullDiskForEachTest(): FullDiskTest {
  let made: { simulator: GatewaySimulator; disk: FullDisk; runs: RunningAirlock[] } | null = null;
  beforeEach(async () => {
    const simulator = await startGatewaySimulator();
    made = { simulator, disk: await prepareFullDisk(simulator.baseUrl), runs: [] };
  });
  afterEach(async () => {
    if (made === null) return;
    const { simulator, disk, runs } = made;
    made = null;
    for (const run of runs) await run.airlock.stop();
    await simulator.close();
    rmSync(disk.dataDir, { recursive: true, force: true });
  });
  const thisTest = (): NonNullable<typeof made> => {
    if (made === null) throw new Error('fullDiskForEachTest: its disk exists only while a test runs');
    return made;
  };
  return {
    get simulator() {
      return thisTest().simulator;
    },
    get dataDir() {
      return thisTest().disk.dataDir;
    },
    get agentToken() {
      return thisTest().disk.agentToken;
    },
    get freeToken() {
      return thisTest().disk.freeToken;
    },
    async start() {
      const test = thisTest();
      const run = await test.disk.start();
      test.runs.push(run);
      return run;
    },
    setMainBudget: (budget) => thisTest().disk.setMainBudget(budget),
    fill: () => thisTest().disk.fill(),
    freeSpace: () => thisTest().disk.freeSpace(),
  };
}

async function prepareFullDisk(simulatorBaseUrl: string): Promise<FullDisk> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-full-disk-'));
  const agentToken = generateToken();
  const freeToken = generateToken();
  const store = openConfigStore(dataDir);
  await store.update((config) =>
    addProfile(config, { id: 'main', name: 'Main', baseUrl: simulatorBaseUrl, prices: PRICES }, { activate: true }),
  );
  await store.update((config) => addProfile(config, { id: 'free', name: 'Free', baseUrl: simulatorBaseUrl, prices: PRICES }));
  await store.update((config) => addClientToken(config, tokenRecord('agent', agentToken, 'main', Date.now())));
  await store.update((config) => addClientToken(config, tokenRecord('free', freeToken, 'free', Date.now())));
  store.close();
  fillDatabase(dataDir);
  const secrets = memorySecretStore({
    [CONTROL_TOKEN_ACCOUNT]: CONTROL_TOKEN,
    [gatewayKeyAccount('main')]: SENTINEL_KEY,
    [gatewayKeyAccount('free')]: SENTINEL_KEY,
  });
  return {
    dataDir,
    agentToken,
    freeToken,
    async start() {
      const airlock = await startAirlock({
        dataDir,
        port: 0,
        env: {},
        secrets,
        uiDir: path.join(dataDir, 'no-ui'),
        maxLogBytes: FULL_LOG_BYTES,
      });
      return running(airlock);
    },
    fill() {
      fillDatabase(dataDir);
      packRequests(dataDir);
    },
    async setMainBudget(budget) {
      const config = openConfigStore(dataDir);
      await config.update((current) => updateProfile(current, 'main', { budget }));
      config.close();
    },
    freeSpace() {
      const db = new DatabaseSync(path.join(dataDir, DATABASE_FILE_NAME), { timeout: 5_000 });
      try {
        db.exec('DELETE FROM filler');
        db.exec(`DELETE FROM requests WHERE client_path = '${PACKING_PATH}'`);
      } finally {
        db.close();
      }
    },
  };
}

function fillDatabase(dataDir: string): void {
  const db = openLogDatabase({ dataDir });
  try {
    db.exec('CREATE TABLE IF NOT EXISTS filler (blob BLOB NOT NULL)');
    const insert = db.prepare('INSERT INTO filler (blob) VALUES (?)');
    for (let index = 0; index < FILLER_BLOBS; index += 1) insert.run(Buffer.alloc(FILLER_BLOB_BYTES, index));
  } finally {
    db.close();
  }
}

const PACKING_PATH = '/packing';

function packRequests(dataDir: string): void {
  const db = openLogDatabase({ dataDir });
  const yesterdayMs = Date.now() - 24 * 60 * 60_000;
  try {
    db.exec(`PRAGMA max_page_count = ${Number(db.prepare('PRAGMA page_count').get()?.page_count)}`);
    const insert = db.prepare(
      `INSERT INTO requests (id, started_at_ms, method, client_path, upstream_path, protocol, protocol_mode, state)
       VALUES (?, ?, 'POST', '${PACKING_PATH}', '', 'openai', 'native', 'done')`,
    );
    for (let index = 0; index < 100_000; index += 1) {
      try {
        insert.run(newRequestId(Date.now()), yesterdayMs + index);
      } catch {
        return;
      }
    }
  } finally {
    db.close();
  }
}

function running(airlock: Airlock): RunningAirlock {
  const ends: EndEvent[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  airlock.proxy.events.subscribe((event) => {
    if (event.type !== 'end') return;
    ends.push(event);
    for (const waiter of waiters.splice(0)) {
      if (ends.length >= waiter.count) waiter.resolve();
      else waiters.push(waiter);
    }
  });
  const endsReach = (count: number): Promise<void> =>
    ends.length >= count ? Promise.resolve() : new Promise((resolve) => waiters.push({ count, resolve }));
  return {
    airlock,
    ends,
    async chat(token, count = 1) {
      const replies: RawResponse[] = [];
      const endedBefore = ends.length;
      for (let index = 0; index < count; index += 1) {
        replies.push(
          await rawRequest(`${airlock.proxy.url}/v1/chat/completions`, {
            method: 'POST',
            headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
            body: chatBody(),
          }),
        );
        // Every request ends once; its end (and its spend) may follow the answer by a moment.
        await endsReach(endedBefore + index + 1);
      }
      return replies;
    },
    async status() {
      const response = await fetch(`${airlock.proxy.url}/_airlock/api/status`, { headers: { authorization: `Bearer ${CONTROL_TOKEN}` } });
      return (await response.json()) as StatusResponse;
    },
  };
}
