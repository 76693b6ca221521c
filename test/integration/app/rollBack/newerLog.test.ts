import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addClientToken, addProfile } from '../../../../proxy/app/profiles/configMutations.ts';
import { openConfigStore } from '../../../../proxy/app/profiles/configStore.ts';
import { RUN_ONLY_LOG_DIR_NAME } from '../../../../proxy/app/runOnlyLog.ts';
import { startAirlock, type Airlock } from '../../../../proxy/app/startAirlock.ts';
import { generateToken, tokenRecord } from '../../../../proxy/http/clientTokens.ts';
import { DATABASE_FILE_NAME, openLogDatabase, SCHEMA_VERSION } from '../../../../proxy/store/schema.ts';
import { startGatewaySimulator } from '../../../simulator/server.ts';
import type { GatewaySimulator } from '../../../simulator/types.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../../support/http.ts';
import { memorySecretStore } from '../../../support/memorySecretStore.ts';
import { SENTINEL_KEY } from '../../../support/sentinel.ts';

const NEWER_SCHEMA = SCHEMA_VERSION + 1;
let dataDir: string;
let simulator: GatewaySimulator;
let airlock: Airlock | undefined;
const cappedToken = generateToken();
const openToken = generateToken();

/** A log an update wrote: this schema, a row of today's spend, and one more migration (a column) this Airlock does not know. */
function newerLog(): void {
  const db = openLogDatabase({ dataDir });
  db.prepare(
    `INSERT INTO requests (id, started_at_ms, method, client_path, upstream_path, protocol, protocol_mode, state, cost_credits, profile_id)
     VALUES ('alk_newer_1', ?, 'POST', '/v1/chat/completions', '', 'openai', 'native', 'done', 7, 'capped')`,
  ).run(Date.now());
  db.exec('ALTER TABLE requests ADD COLUMN from_a_newer_airlock TEXT');
  db.exec(`PRAGMA user_version = ${NEWER_SCHEMA}`);
  db.close();
}

function newerLogState(): { schema: unknown; rows: unknown } {
  const db = new DatabaseSync(path.join(dataDir, DATABASE_FILE_NAME), { readOnly: true });
  try {
    return {
      schema: Object.values(db.prepare('PRAGMA user_version').get() ?? {})[0],
      rows: db.prepare('SELECT id, cost_credits, from_a_newer_airlock FROM requests').all(),
    };
  } finally {
    db.close();
  }
}

const send = (token: string) =>
  rawRequest(`${airlock?.proxy.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
    body: chatBody(),
  });

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-newer-log-'));
  simulator = await startGatewaySimulator();
  const store = openConfigStore(dataDir);
  await store.update((config) =>
    addProfile(config, { id: 'capped', name: 'Capped', baseUrl: simulator.baseUrl, budget: { dailyCredits: 100 } }, { activate: true }),
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
  newerLog();
  airlock = await start();
});

const start = (): Promise<Airlock> =>
  startAirlock({ dataDir, port: 0, env: {}, secrets: memorySecretStore({ capped: SENTINEL_KEY, open: SENTINEL_KEY }) });
afterAll(async () => {
  await airlock?.stop();
  await simulator?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('a request log written by a newer Airlock (a roll-back)', () => {
  it('does not stop the start: the tools of a profile without a cap are proxied, and logged for this run', async () => {
    const reply = await send(openToken);
    expect(reply.status).toBe(200);
    await airlock?.log.flush();
    expect(airlock?.log.listRequests({}).rows.map((row) => row.profileId)).toEqual(['open']);
  });

  it("refuses a capped profile's requests, whose spend the newer log holds, saying why and what to do", async () => {
    const reply = await send(cappedToken);
    expect(reply.status).toBe(507);
    const { message } = JSON.parse(reply.body).error as { message: string };
    expect(message).toContain("the daily cap of 100 credits for profile 'capped' cannot be checked");
    expect(message).toContain(`was written by a newer Airlock (schema ${NEWER_SCHEMA}; this one knows ${SCHEMA_VERSION})`);
    expect(message).toContain('Update Airlock to count spend again');
  });

  it("says so at start, in the lines `airlock serve` prints and on the window's notice board", () => {
    expect(airlock?.notices.join('\n')).toMatch(/request log .*requests\.db was written by a newer Airlock/);
    const notice = airlock?.noticeBoard.list().find((entry) => entry.kind === 'log_newer');
    expect(notice?.fix).toMatch(/^Update Airlock/);
    expect(airlock?.log.status().ledgerGap?.reason).toContain('newer Airlock');
  });

  it('leaves the newer log as it was; its own log stays, for the update back', async () => {
    await airlock?.stop();
    expect(newerLogState()).toEqual({
      schema: NEWER_SCHEMA,
      rows: [{ id: 'alk_newer_1', cost_credits: 7, from_a_newer_airlock: null }],
    });
    expect(existsSync(path.join(dataDir, RUN_ONLY_LOG_DIR_NAME, DATABASE_FILE_NAME))).toBe(true);
  });

  it('updated again, Airlock adds the requests logged apart to its log: their spend counts toward the caps once', async () => {
    // The update back: the log is of this Airlock's schema again (a newer one built from this code).
    const db = new DatabaseSync(path.join(dataDir, DATABASE_FILE_NAME));
    db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
    db.close();
    airlock = await start();
    const rows = airlock.log.listRequests({}).rows;
    // The newer log's own row, and the two logged apart: the refusal and the request proxied.
    expect(rows.map((row) => row.profileId).sort()).toEqual(['capped', 'capped', 'open']);
    const openSpend = rows.find((row) => row.profileId === 'open')?.costCredits ?? 0;
    expect(openSpend).toBeGreaterThan(0);
    expect(airlock.log.spendSince({ sinceMs: 0, profileId: 'open' })).toBeCloseTo(openSpend, 9);
    expect(airlock.log.ledgerGap(Date.now())).toBeNull();
    expect(airlock.notices.join('\n')).toContain(
      '2 request(s) an older Airlock logged apart while this log was too new for it are now in the log',
    );
    expect(existsSync(path.join(dataDir, RUN_ONLY_LOG_DIR_NAME))).toBe(false);
    await airlock.stop();

    // Once: a start after it finds nothing more to add.
    airlock = await start();
    expect(airlock.log.spendSince({ sinceMs: 0, profileId: 'open' })).toBeCloseTo(openSpend, 9);
    expect(airlock.notices.join('\n')).not.toContain('logged apart');
  });
});
