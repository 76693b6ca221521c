import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addClientToken, addProfile } from '../../../../proxy/app/profiles/configMutations.ts';
import { openConfigStore } from '../../../../proxy/app/profiles/configStore.ts';
import { startAirlock, type Airlock } from '../../../../proxy/app/startAirlock.ts';
import { generateToken, tokenRecord } from '../../../../proxy/http/clientTokens.ts';
import { SCHEMA_VERSION } from '../../../../proxy/store/schema.ts';
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

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-newer-log-unreadable-'));
  simulator = await startGatewaySimulator();
  const store = openConfigStore(dataDir);
  await store.update((config) =>
    addProfile(config, { id: 'capped', name: 'Capped', baseUrl: simulator.baseUrl, budget: { monthlyCredits: 100 } }, { activate: true }),
  );
  await store.update((config) => addProfile(config, { id: 'open', name: 'Open', baseUrl: simulator.baseUrl }));
  await store.update((config) => addClientToken(config, tokenRecord('capped-tool', cappedToken, 'capped', 1)));
  await store.update((config) => addClientToken(config, tokenRecord('open-tool', openToken, 'open', 2)));
  store.close();
  // The newer Airlock renamed the column the caps read: what this one would count is not there.
  writeNewerLog(
    dataDir,
    [{ id: 'alk_newer_file', costCredits: 7, profileId: 'capped' }],
    [{ id: 'alk_newer_wal', costCredits: 7, profileId: 'capped' }],
    'ALTER TABLE requests RENAME COLUMN cost_credits TO cost_microcredits',
  );
  filesBefore = newerLogFiles(dataDir);
  airlock = await startAirlock({ dataDir, port: 0, env: {}, secrets: memorySecretStore({ capped: SENTINEL_KEY, open: SENTINEL_KEY }) });
});

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

describe("a newer Airlock's request log whose spend this one cannot read", () => {
  it("refuses a capped profile's requests, saying what it could not read and what to do; others go on", async () => {
    const reply = await send(cappedToken);
    expect(reply.status).toBe(507);
    const { message, code } = JSON.parse(reply.body).error as { message: string; code: string };
    expect(code).toBe('ledger_incomplete');
    expect(message).toContain("the monthly cap of 100 credits for profile 'capped' cannot be checked");
    expect(message).toContain(`was written by a newer Airlock (schema ${NEWER_SCHEMA}; this one knows ${SCHEMA_VERSION})`);
    expect(message).toContain('which this Airlock could not read (no such column: cost_credits)');
    expect(message).toContain('Update Airlock to count spend again');
    expect((await send(openToken)).status).toBe(200);
  });

  it('says which of the two it does, at start and on the notice board', () => {
    expect(airlock?.notices.join('\n')).toContain('which this Airlock could not read');
    const notice = airlock?.noticeBoard.list().find((entry) => entry.kind === 'log_newer');
    expect(notice?.cause).toContain('could not read (no such column: cost_credits)');
    expect(notice?.cause).not.toContain('caps count the spend of both');
  });

  it('leaves the newer log as it was, byte for byte', async () => {
    await airlock?.stop();
    airlock = undefined;
    expect(newerLogFiles(dataDir)).toEqual(filesBefore);
  });
});
