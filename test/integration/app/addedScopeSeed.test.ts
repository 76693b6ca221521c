import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startAirlock, type Airlock } from '../../../proxy/app/startAirlock.ts';
import { RequestEvents } from '../../../proxy/contracts/requestEvents.ts';
import { CONTROL_TOKEN_ACCOUNT } from '../../../proxy/contracts/secretStore.ts';
import { createRequestLog } from '../../../proxy/store/requestLog.ts';
import { endEvent, startEvent } from '../../support/lifecycleEvents.ts';
import { memorySecretStore } from '../../support/memorySecretStore.ts';

const CONTROL_TOKEN = 'alkc_control-token-for-tests-0123456789abcdef';
let airlock: Airlock | undefined;
let dataDir: string | undefined;

afterEach(async () => {
  await airlock?.stop();
  airlock = undefined;
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** A log holding 3 credits spent today by a client token named `ci`, as a run before this one wrote it. */
async function logWithSpendOfCi(dir: string): Promise<void> {
  const log = createRequestLog({ dataDir: dir, knownSecrets: () => [], minFreeDiskBytes: 0 });
  const events = new RequestEvents((error) => {
    throw error;
  });
  log.attach(events);
  const startedAtMs = Date.now();
  events.emit(startEvent('alk_before', { startedAtMs, profileId: 'main', clientName: 'ci' }));
  events.emit(endEvent('alk_before', { costCredits: 3, durationMs: 10 }));
  await log.flush();
  await log.close();
}

describe('a client token added while Airlock runs', () => {
  it("counts the log's spend under its name toward its caps, as a restart would", async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-added-scope-'));
    await logWithSpendOfCi(dataDir);
    const homeDir = path.join(dataDir, 'home');
    mkdirSync(homeDir);
    const secrets = memorySecretStore({ [CONTROL_TOKEN_ACCOUNT]: CONTROL_TOKEN });
    airlock = await startAirlock({ dataDir, port: 0, env: {}, secrets, homeDir, uiDir: path.join(dataDir, 'no-ui') });
    const ci = { kind: 'client', clientName: 'ci' } as const;
    // Not a token at this start: the seed did not read its spend.
    expect(airlock.spendGate.ledger.totals(ci, Date.now()).dayCredits).toBe(0);

    const made = await fetch(`${airlock.proxy.url}/_airlock/api/tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${CONTROL_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'ci' }),
    });
    expect(made.status).toBeLessThan(300);

    expect(airlock.spendGate.ledger.totals(ci, Date.now())).toEqual({ dayCredits: 3, monthCredits: 3 });
  });
});
