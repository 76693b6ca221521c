import { copyFileSync, mkdtempSync, openSync, closeSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { addClientToken, addProfile } from '../../../proxy/app/profiles/configMutations.ts';
import { openConfigStore } from '../../../proxy/app/profiles/configStore.ts';
import { startAirlock, type Airlock } from '../../../proxy/app/startAirlock.ts';
import type { RequestLogRow } from '../../../proxy/contracts/log.ts';
import type { Budget } from '../../../proxy/contracts/profile.ts';
import { gatewayKeyAccount } from '../../../proxy/contracts/secretStore.ts';
import { generateToken, tokenRecord } from '../../../proxy/http/clientTokens.ts';
import { SqliteIdempotencyStore } from '../../../proxy/store/write/idempotentAnswers.ts';
import { DATABASE_FILE_NAME, openLogDatabase } from '../../../proxy/store/schema.ts';
import { LogWriter, type LogBatch } from '../../../proxy/store/write/writer.ts';
import { startGatewaySimulator, type GatewaySimulator } from '../../simulator/index.ts';
import { chatBody, JSON_HEADERS, rawRequest, type RawResponse } from '../../support/http.ts';
import { memorySecretStore } from '../../support/memorySecretStore.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';

/** The log's page size: a damaged page is overwritten whole. */
export const PAGE_BYTES = 4096;

/** A body long enough to need overflow pages, findable in the file by its text. */
export const BODY_MARKER = 'damage-me-';
const LONG_BODY = `${BODY_MARKER}${'x'.repeat(20_000)}`;

export function spendRow(id: string, costCredits: number, overrides: Partial<RequestLogRow> = {}): RequestLogRow {
  return {
    id,
    upstreamRequestId: `up-${id}`,
    startedAtMs: Date.now(),
    ttfbMs: 12.5,
    durationMs: 40.25,
    clientName: 'agent',
    profileId: 'main',
    method: 'POST',
    clientPath: '/v1/chat/completions',
    upstreamPath: 'chat/completions',
    protocol: 'openai',
    protocolMode: 'native',
    requestedModel: 'gpt-4o-mini',
    upstreamModel: 'gpt-4o-mini',
    responseModel: 'gpt-4o-mini',
    modelMismatch: false,
    stream: false,
    notes: [],
    status: 200,
    errorClass: null,
    errorMessage: null,
    errorCode: null,
    retries: 0,
    inputTokens: 1000,
    outputTokens: 200,
    cachedInputTokens: null,
    reasoningTokens: null,
    costCredits,
    usageSource: 'reported',
    state: 'done',
    agentSessionId: null,
    summary: null,
    replayOf: null,
    ...overrides,
  };
}

export function batchOf(rows: RequestLogRow[]): LogBatch {
  return {
    rows,
    bodies: rows.map((row) => ({
      requestId: row.id,
      record: {
        requestHeaders: {},
        responseHeaders: {},
        requestBody: LONG_BODY,
        requestTruncated: false,
        responseBody: '{"ok":true}',
        responseTruncated: false,
        streamText: null,
        rawEvents: null,
        rawEventOffsetsMs: null,
      },
    })),
  };
}

export interface KeyedAnswer {
  profileId: string;
  idempotencyKey: string;
  body: string;
}

export interface SeedOptions {
  /** Written and checkpointed into the database file. */
  rows?: RequestLogRow[];
  /** Each committed on its own after the checkpoint, so they live only in the WAL, as a crash leaves them. */
  walRows?: RequestLogRow[];
  answers?: KeyedAnswer[];
  /** The log's application_id, set before `rows`: 0 is a log an Airlock from before the ids wrote. */
  applicationId?: number;
}

/**
 * Writes a request log with the log's own schema and writer into `dataDir`. With `walRows` the
 * files are copied while the connection is still open: what a killed Airlock leaves behind.
 */
export function seedLog(dataDir: string, options: SeedOptions): void {
  const seedDir = mkdtempSync(join(tmpdir(), 'airlock-seed-'));
  const db = openLogDatabase({ dataDir: seedDir });
  try {
    if (options.applicationId !== undefined) db.exec(`PRAGMA application_id = ${options.applicationId}`);
    const writer = new LogWriter(db);
    if (options.rows?.length) writeOrThrow(writer, batchOf(options.rows));
    const store = new SqliteIdempotencyStore(db, () => []);
    for (const answer of options.answers ?? []) {
      store.begin(answer.profileId, answer.idempotencyKey, {
        requestId: `alk_${answer.idempotencyKey}`,
        createdAtMs: Date.now(),
        fingerprint: null,
      });
      store.settle(answer.profileId, answer.idempotencyKey, {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: Buffer.from(answer.body),
      });
    }
    db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    db.exec('PRAGMA wal_autocheckpoint = 0');
    for (const row of options.walRows ?? []) writeOrThrow(writer, batchOf([row]));
    for (const suffix of ['', '-wal']) {
      try {
        copyFileSync(join(seedDir, `${DATABASE_FILE_NAME}${suffix}`), join(dataDir, `${DATABASE_FILE_NAME}${suffix}`));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
  } finally {
    db.close();
    rmSync(seedDir, { recursive: true, force: true });
  }
}

export function overwrite(path: string, offset: number, bytes: Buffer): void {
  const fd = openSync(path, 'r+');
  try {
    writeSync(fd, bytes, 0, bytes.length, offset);
  } finally {
    closeSync(fd);
  }
}

/** The offset of the first page (of `pageBytes`) holding `text`. */
export function pageHolding(path: string, text: string, pageBytes: number): number {
  const at = readFileSync(path).indexOf(text);
  if (at === -1) throw new Error(`${text} is not in ${path}`);
  return Math.floor(at / pageBytes) * pageBytes;
}

/** The seeded log must hold every row it was given: a failed write stops the test's setup. */
export function writeOrThrow(writer: LogWriter, batch: Parameters<LogWriter['write']>[0]): void {
  const result = writer.write(batch);
  if (result.outcome === 'failed') throw result.error;
}

/** Overwrites the log's page that holds `text` with garbage, as a storage fault (or another program writing the file) leaves it. */
export function damagePageHolding(dataDir: string, text: string): void {
  const dbPath = join(dataDir, DATABASE_FILE_NAME);
  overwrite(dbPath, pageHolding(dbPath, text, PAGE_BYTES), Buffer.alloc(PAGE_BYTES, 0x5a));
}

/** A test's data directory, with profile `main` on the file's simulator and the client token `agent`. */
export interface DamagedLogAirlock {
  readonly simulator: GatewaySimulator;
  readonly dataDir: string;
  readonly clientToken: string;
  /** Starts Airlock on the data directory; it is stopped after the test, if the test did not stop it. */
  start(): Promise<Airlock>;
  chat(running: Airlock): Promise<RawResponse>;
  /** A keyed image creation, the request the idempotency store serves. */
  createImage(running: Airlock, idempotencyKey: string): Promise<RawResponse>;
  controlGet(running: Airlock, path: string): Promise<RawResponse>;
}

/**
 * Registers the calling file's hooks: one simulator for the file, reset before each test, and a
 * data directory a test (what the returned object stands for during it) with profile `main`
 * (`mainBudget` its budget) and the token `agent`. After each test every Airlock it started is
 * stopped (stop is once, however often called) and the directory removed.
 */
export function damagedLogAirlockForEachTest(mainBudget?: Budget): DamagedLogAirlock {
  const clientToken = generateToken();
  let simulator: GatewaySimulator | null = null;
  let made: { dataDir: string; runs: Airlock[] } | null = null;
  beforeAll(async () => {
    simulator = await startGatewaySimulator();
  });
  afterAll(async () => {
    await simulator?.close();
  });
  beforeEach(async () => {
    const gateway = fileSimulator();
    gateway.reset();
    const dataDir = mkdtempSync(join(tmpdir(), 'airlock-damaged-log-'));
    const store = openConfigStore(dataDir);
    // A capped profile refuses a model it has no price for: the chat's is priced (OpenAI's list price for gpt-4o-mini).
    const capped = mainBudget ? { budget: mainBudget, prices: [{ model: 'gpt-4o-mini', inputPer1M: 0.15, outputPer1M: 0.6 }] } : {};
    const profile = { id: 'main', name: 'Main', baseUrl: gateway.baseUrl, ...capped };
    await store.update((config) => addProfile(config, profile, { activate: true }));
    await store.update((config) => addClientToken(config, tokenRecord('agent', clientToken, null, Date.now())));
    store.close();
    made = { dataDir, runs: [] };
  });
  afterEach(async () => {
    if (made === null) return;
    const { dataDir, runs } = made;
    made = null;
    for (const run of runs) await run.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const fileSimulator = (): GatewaySimulator => {
    if (simulator === null) throw new Error('damagedLogAirlockForEachTest: its simulator exists only while the file runs');
    return simulator;
  };
  const thisTest = (): NonNullable<typeof made> => {
    if (made === null) throw new Error('damagedLogAirlockForEachTest: its data directory exists only while a test runs');
    return made;
  };
  const authorized = { ...JSON_HEADERS, authorization: `Bearer ${clientToken}` };
  return {
    get simulator() {
      return fileSimulator();
    },
    get dataDir() {
      return thisTest().dataDir;
    },
    clientToken,
    async start() {
      const test = thisTest();
      const secrets = memorySecretStore({ [gatewayKeyAccount('main')]: SENTINEL_KEY });
      const running = await startAirlock({ dataDir: test.dataDir, port: 0, env: {}, secrets });
      test.runs.push(running);
      return running;
    },
    chat: (running) => rawRequest(`${running.proxy.url}/v1/chat/completions`, { method: 'POST', headers: authorized, body: chatBody() }),
    createImage: (running, idempotencyKey) =>
      rawRequest(`${running.proxy.url}/v1/images/generations`, {
        method: 'POST',
        headers: { ...authorized, 'idempotency-key': idempotencyKey },
        body: JSON.stringify({ model: 'gpt-image-1', prompt: 'a lighthouse' }),
      }),
    controlGet: (running, path) =>
      rawRequest(`${running.proxy.url}/_airlock/api${path}`, { headers: { authorization: `Bearer ${running.controlToken}` } }),
  };
}
