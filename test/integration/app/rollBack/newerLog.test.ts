import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addClientToken, addProfile } from '../../../../proxy/app/profiles/configMutations.ts';
import { openConfigStore } from '../../../../proxy/app/profiles/configStore.ts';
import { RUN_ONLY_LOG_DIR_NAME } from '../../../../proxy/app/runOnlyLog.ts';
import { startAirlock, type Airlock } from '../../../../proxy/app/startAirlock.ts';
import { formatCredits } from '../../../../proxy/contracts/amounts.ts';
import { BUDGET_REFUSAL_STATUS } from '../../../../proxy/contracts/spend.ts';
import { startOfLocalDayMs } from '../../../../proxy/core/localPeriods.ts';
import { generateToken, tokenRecord } from '../../../../proxy/http/clientTokens.ts';
import { DATABASE_FILE_NAME, openLogDatabase, SCHEMA_VERSION } from '../../../../proxy/store/schema.ts';
import { startGatewaySimulator } from '../../../simulator/server.ts';
import type { GatewaySimulator } from '../../../simulator/types.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../../support/http.ts';
import { memorySecretStore } from '../../../support/memorySecretStore.ts';
import { SENTINEL_KEY } from '../../../support/sentinel.ts';
import { NEWER_SCHEMA, newerLogFiles, writeNewerLog } from './newerLogFiles.ts';

let dataDir: string;
let simulator: GatewaySimulator;
let airlock: Airlock | undefined;
let filesBefore: Record<string, string>;
const cappedToken = generateToken();
const openToken = generateToken();
const FOLDED = { id: 'alk_folded_before', costCredits: 0.3, profileId: 'capped' };

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-newer-log-'));
  simulator = await startGatewaySimulator();
  const store = openConfigStore(dataDir);
  // Priced so that an answer (6 tokens out) fills what the cap has left, while the input's estimate fits in it.
  const prices = [{ model: 'gpt-4o-mini', inputPer1M: 1000, outputPer1M: 50_000 }];
  await store.update((config) =>
    addProfile(
      config,
      { id: 'capped', name: 'Capped', baseUrl: simulator.baseUrl, budget: { dailyCredits: 1 }, prices },
      { activate: true },
    ),
  );
  await store.update((config) =>
    addProfile(config, {
      id: 'open',
      name: 'Open',
      baseUrl: simulator.baseUrl,
      prices: [{ model: 'gpt-4o-mini', inputPer1M: 1000, outputPer1M: 2000 }],
    }),
  );
  await store.update((config) => addClientToken(config, tokenRecord('capped-tool', cappedToken, 'capped', 1)));
  await store.update((config) => addClientToken(config, tokenRecord('open-tool', openToken, 'open', 2)));
  store.close();
  // 0.9 credits of today's spend: one row in the file, one in the WAL only, and one an earlier roll-back's
  // log holds too (an update back folded it in and kept the folder, which held something else).
  writeNewerLog(
    dataDir,
    [FOLDED, { id: 'alk_newer_file', costCredits: 0.3, profileId: 'capped' }],
    [{ id: 'alk_newer_wal', costCredits: 0.3, profileId: 'capped' }],
  );
  const runOnly = openLogDatabase({ dataDir: path.join(dataDir, RUN_ONLY_LOG_DIR_NAME) });
  runOnly
    .prepare(
      `INSERT INTO requests (id, started_at_ms, method, client_path, upstream_path, protocol, protocol_mode, state, cost_credits, profile_id)
       VALUES (?, ?, 'POST', '/v1/chat/completions', '', 'openai', 'native', 'done', ?, ?)`,
    )
    .run(FOLDED.id, Date.now(), FOLDED.costCredits, FOLDED.profileId);
  runOnly.close();
  mkdirSync(path.join(dataDir, RUN_ONLY_LOG_DIR_NAME, 'kept-by-the-user'));
  filesBefore = newerLogFiles(dataDir);
  airlock = await start();
});

const start = (): Promise<Airlock> =>
  startAirlock({ dataDir, port: 0, env: {}, secrets: memorySecretStore({ capped: SENTINEL_KEY, open: SENTINEL_KEY }) });
afterAll(async () => {
  await airlock?.stop();
  await simulator?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const send = (token: string) =>
  rawRequest(`${airlock?.proxy.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
    body: chatBody(),
  });

describe('a request log written by a newer Airlock (a roll-back)', () => {
  it('does not stop the start: the tools of a profile without a cap are proxied, and logged for this run', async () => {
    const reply = await send(openToken);
    expect(reply.status).toBe(200);
    await airlock?.log.flush();
    expect(
      airlock?.log
        .listRequests({})
        .rows.map((row) => row.profileId)
        .sort(),
    ).toEqual(['capped', 'open']);
  });

  it("counts the newer log's spend (its WAL's too) and this log's toward the caps, a request both hold once", () => {
    expect(airlock?.log.spendSince({ sinceMs: startOfLocalDayMs(Date.now()), profileId: 'capped' })).toBeCloseTo(0.9, 9);
    expect(airlock?.log.ledgerGap(Date.now())).toBeNull();
  });

  it("admits a capped profile's request while its cap has room, and refuses as the cap does once both logs' spend reaches it", async () => {
    const admitted = await send(cappedToken);
    expect(admitted.status).toBe(200);
    const refused = await send(cappedToken);
    expect(refused.status).toBe(BUDGET_REFUSAL_STATUS);
    const { message, code } = JSON.parse(refused.body).error as { message: string; code: string };
    expect(code).toBe('budget_exceeded');
    // Both logs' spend, and this answer's: had the newer log's been left out, the cap had room.
    await airlock?.log.flush();
    const answered = airlock?.log.listRequests({ profileId: 'capped', status: 'ok' }).rows ?? [];
    expect(answered).toHaveLength(1);
    const answeredCredits = answered[0]?.costCredits ?? Number.NaN;
    expect(FOLDED.costCredits + answeredCredits).toBeLessThan(1);
    const spent = 0.9 + answeredCredits;
    expect(spent).toBeGreaterThanOrEqual(1);
    expect(message).toContain(`daily cap of 1 credits for profile 'capped' reached: ${formatCredits(spent)} spent today`);
  });

  it("says so at start, in the lines `airlock serve` prints and on the window's notice board", () => {
    const said = airlock?.notices.join('\n');
    expect(said).toMatch(/request log .*requests\.db was written by a newer Airlock/);
    expect(said).toContain(`(schema ${NEWER_SCHEMA}; this one knows ${SCHEMA_VERSION})`);
    expect(said).toContain('Daily and monthly caps count the spend of both');
    const notice = airlock?.noticeBoard.list().find((entry) => entry.kind === 'log_newer');
    expect(notice?.cause).toContain('that log is read for it, never written');
    expect(notice?.fix).toMatch(/^Update Airlock/);
  });

  it('leaves the newer log as it was, byte for byte, WAL and all; its own log stays, for the update back', async () => {
    await airlock?.stop();
    expect(newerLogFiles(dataDir)).toEqual(filesBefore);
    expect(Object.keys(filesBefore)).toEqual([DATABASE_FILE_NAME, `${DATABASE_FILE_NAME}-wal`]);
    expect(existsSync(path.join(dataDir, RUN_ONLY_LOG_DIR_NAME, DATABASE_FILE_NAME))).toBe(true);
  });

  it('updated again, Airlock adds the requests logged apart to its log: their spend counts toward the caps once', async () => {
    // The update back: the log is of this Airlock's schema again (a newer one built from this code).
    const db = new DatabaseSync(path.join(dataDir, DATABASE_FILE_NAME));
    db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
    db.close();
    airlock = await start();
    const rows = airlock.log.listRequests({}).rows;
    // The newer log's three rows, and the three logged apart this run: two answered, one refused.
    expect(rows.map((row) => row.profileId).sort()).toEqual(['capped', 'capped', 'capped', 'capped', 'capped', 'open']);
    const openSpend = rows.find((row) => row.profileId === 'open')?.costCredits ?? 0;
    expect(openSpend).toBeGreaterThan(0);
    expect(airlock.log.spendSince({ sinceMs: 0, profileId: 'open' })).toBeCloseTo(openSpend, 9);
    expect(airlock.log.ledgerGap(Date.now())).toBeNull();
    expect(airlock.notices.join('\n')).toContain(
      '3 request(s) an older Airlock logged apart while this log was too new for it are now in the log',
    );
    await airlock.stop();

    // Once: a start after it finds nothing more to add.
    airlock = await start();
    expect(airlock.log.spendSince({ sinceMs: 0, profileId: 'open' })).toBeCloseTo(openSpend, 9);
    expect(airlock.notices.join('\n')).not.toContain('logged apart');
  });
});
