import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RUN_ONLY_LOG_DIR_NAME } from '../../../../proxy/app/runOnlyLog.ts';
import { startAirlock, type Airlock } from '../../../../proxy/app/startAirlock.ts';
import { DATABASE_FILE_NAME } from '../../../../proxy/store/schema.ts';
import { memorySecretStore } from '../../../support/memorySecretStore.ts';
import { seedLog, spendRow } from '../../store/damagedLogFixture.ts';
import { writeNewerLog } from './newerLogFiles.ts';

let dataDir: string;
let runOnlyDir: string;
let airlock: Airlock | undefined;
beforeEach(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-damaged-run-only-'));
  runOnlyDir = path.join(dataDir, RUN_ONLY_LOG_DIR_NAME);
  // What a power cut or a disk fault can leave of the log a roll-back wrote: nothing of it reads back.
  mkdirSync(runOnlyDir);
  writeFileSync(path.join(runOnlyDir, DATABASE_FILE_NAME), Buffer.alloc(8192, 0xab));
});
afterEach(async () => {
  await airlock?.stop();
  airlock = undefined;
  rmSync(dataDir, { recursive: true, force: true });
});

const start = async (): Promise<Airlock> => {
  airlock = await startAirlock({ dataDir, port: 0, env: {}, secrets: memorySecretStore({}) });
  return airlock;
};

describe("a roll-back's own log left damaged", () => {
  it('does not stop the start after the update back: its spend is unknown, so the caps refuse, and the damaged file stays', async () => {
    seedLog(dataDir, { rows: [spendRow('alk_1', 0.4)] });
    const started = await start();
    expect(started.log.spendSince({ sinceMs: 0 })).toBeCloseTo(0.4, 9);
    expect(started.log.ledgerGap(Date.now())).not.toBeNull();
    expect(started.notices.join('\n')).toContain(`In ${RUN_ONLY_LOG_DIR_NAME}: The request log ${DATABASE_FILE_NAME} was damaged`);
    expect(readdirSync(runOnlyDir).some((name) => name.startsWith('requests-damaged-'))).toBe(true);
  });

  it('does not stop a rolled-back start either', async () => {
    writeNewerLog(dataDir, [{ id: 'alk_newer', costCredits: 0.2, profileId: 'p' }], []);
    const started = await start();
    expect(started.notices.join('\n')).toContain('was written by a newer Airlock');
    expect(started.logRecovery?.message).toContain('was damaged');
    expect(started.log.ledgerGap(Date.now())).not.toBeNull();
  });
});
