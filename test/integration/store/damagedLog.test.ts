import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startupLines } from '../../../proxy/app/cli/serve.ts';
import type { Airlock } from '../../../proxy/app/startAirlock.ts';
import { recordCleanClose } from '../../../proxy/store/logCheck.ts';
import { LOST_SPEND_MARKER_FILE_NAME } from '../../../proxy/store/lostSpendMarker.ts';
import { DATABASE_FILE_NAME } from '../../../proxy/store/schema.ts';
import { BODY_MARKER, damagedLogAirlockForEachTest, overwrite, PAGE_BYTES, pageHolding, seedLog, spendRow } from './damagedLogFixture.ts';

const NODE_BINARY = fileURLToPath(new URL('../../../node_modules/.bin/node', import.meta.url));
const RECOVER_UNTIL_KILLED = fileURLToPath(new URL('./fixtures/recoverUntilKilled.ts', import.meta.url));
/**
 * Three requests of 0.4 credits: 1.2 spent today, over the profile's daily cap of 1. Dated when a test
 * seeds them, not when the file loads: a run that crossed midnight counted them as yesterday's.
 */
const spentToday = () => [spendRow('alk_spent_1', 0.4), spendRow('alk_spent_2', 0.4), spendRow('alk_spent_3', 0.4)];
const DAILY_CAP_CREDITS = 1;

const fixture = damagedLogAirlockForEachTest({ dailyCredits: DAILY_CAP_CREDITS });
const { start, chat } = fixture;

const dbPath = (): string => join(fixture.dataDir, DATABASE_FILE_NAME);

async function status(running: Airlock): Promise<{ alarms: Array<{ kind: string; message: string }> }> {
  const reply = await fixture.controlGet(running, '/status');
  return JSON.parse(reply.body) as { alarms: Array<{ kind: string; message: string }> };
}

/**
 * What every damaged start must show: it serves, the damaged file sits beside the fresh one under
 * a timestamped name, the start output and the status name that file, and the spend read back
 * from it still holds the daily cap.
 */
async function expectRecovered(running: Airlock, reason: RegExp): Promise<string> {
  const aside = readdirSync(fixture.dataDir).filter((name) => /^requests-damaged-\d{8}T\d{6}Z\.db$/.test(name));
  expect(aside).toHaveLength(1);
  const asidePath = join(fixture.dataDir, aside[0] as string);
  expect(running.logRecovery?.movedTo).toBe(asidePath);
  expect(running.logRecovery?.reason).toMatch(reason);
  expect(running.logRecovery?.recoveredRequests).toBe(3);

  const printed = startupLines(running, { dataDirArgument: null }).join('\n');
  expect(printed).toContain(`It was moved to ${asidePath}`);
  const alarm = (await status(running)).alarms.find((each) => each.kind === 'log_recovered');
  expect(alarm?.message).toContain(asidePath);
  expect(alarm?.message).toMatch(/3 requests were read back.*today 1\.2 credits/);

  const refused = await chat(running);
  expect(refused.status, refused.body).toBe(402);
  expect(refused.headers['x-airlock-budget']).toBe('daily');
  expect(fixture.simulator.received).toHaveLength(0);
  return asidePath;
}

describe('a damaged request log at start', () => {
  it('cut short: starts on a fresh log and keeps the spend of the pages that remain', async () => {
    seedLog(fixture.dataDir, { rows: spentToday() });
    // The rows sit on early pages; the bodies' overflow pages fill the end of the file.
    truncateSync(dbPath(), statSync(dbPath()).size - 4 * PAGE_BYTES);

    const running = await start();
    await expectRecovered(running, /cut short/);
    expect(statSync(dbPath()).size).toBeGreaterThan(0);
  });

  it('header overwritten: SQLite calls it "not a database"; the rows and a keyed creation\'s answer are read from the pages', async () => {
    seedLog(fixture.dataDir, {
      rows: spentToday(),
      answers: [{ profileId: 'main', idempotencyKey: 'image-1', body: '{"data":[{"url":"https://x/1.png"}]}' }],
    });
    overwrite(dbPath(), 0, Buffer.from('this is not a database header any more'));

    const running = await start();
    await expectRecovered(running, /not an SQLite header/);
    expect(running.logRecovery?.recoveredIdempotentAnswers).toBe(1);
    const repeat = await fixture.createImage(running, 'image-1');
    expect(repeat.status).toBe(200);
    expect(repeat.body).toBe('{"data":[{"url":"https://x/1.png"}]}');
    expect(fixture.simulator.received).toHaveLength(0);
  });

  it('garbage in a middle page that only quick_check finds, in a log that was closed cleanly', async () => {
    seedLog(fixture.dataDir, { rows: spentToday() });
    recordCleanClose(fixture.dataDir, DATABASE_FILE_NAME);
    overwrite(dbPath(), pageHolding(dbPath(), BODY_MARKER, PAGE_BYTES), Buffer.alloc(PAGE_BYTES, 0xab));
    // A write moves the modification time; set it apart explicitly, since one clock tick may cover both.
    const { mtime } = statSync(dbPath());
    utimesSync(dbPath(), mtime, new Date(mtime.getTime() + 1_000));

    const running = await start();
    await expectRecovered(running, /quick check found|malformed/);
  });

  it('a damaged WAL, whose commits SQLite would drop without a word, after a crash', async () => {
    seedLog(fixture.dataDir, { walRows: spentToday() });
    // The second frame of the first commit: SQLite replays none of the three commits after it.
    overwrite(`${dbPath()}-wal`, 32 + (24 + PAGE_BYTES) + 24 + 100, Buffer.alloc(64, 0xab));

    const running = await start();
    const asidePath = await expectRecovered(running, /write-ahead log.*damaged/);
    expect(existsSync(`${asidePath}-wal`)).toBe(true);
  });

  it('a damaged WAL beside a log closed cleanly since: only the WAL is set aside, and the log opens whole with its bodies', async () => {
    seedLog(fixture.dataDir, { rows: spentToday() });
    // The seed copies the emptied WAL of its open connection; a clean close leaves none.
    rmSync(`${dbPath()}-wal`);
    recordCleanClose(fixture.dataDir, DATABASE_FILE_NAME);
    // This WAL came after that close (a copy, a sync tool), its header already broken.
    writeFileSync(`${dbPath()}-wal`, Buffer.alloc(2 * PAGE_BYTES, 0xab));

    const running = await start();
    const aside = readdirSync(fixture.dataDir).filter((name) => name.startsWith('requests-damaged-'));
    expect(aside).toEqual([expect.stringMatching(/^requests-damaged-\d{8}T\d{6}Z\.db-wal$/)]);
    const asidePath = join(fixture.dataDir, aside[0] as string);
    expect(running.logRecovery?.movedTo).toBe(asidePath);
    expect(startupLines(running, { dataDirArgument: null }).join('\n')).toContain(`moved, unread, to ${asidePath}`);
    const alarm = (await status(running)).alarms.find((each) => each.kind === 'log_recovered');
    expect(alarm?.message).toMatch(/The request log is whole/);
    const body = await fixture.controlGet(running, '/requests/alk_spent_1/body/request');
    expect(body.status, body.body).toBe(200);
    expect(body.body).toContain(BODY_MARKER);
    const refused = await chat(running);
    expect(refused.status, refused.body).toBe(402);
    expect(fixture.simulator.received).toHaveLength(0);
  });

  it("a WAL from another data directory: set aside unread, the status says where, and the log's own spend still holds the cap", async () => {
    seedLog(fixture.dataDir, { rows: spentToday() });
    // Another log's WAL (a kill left it) copied in beside ours: replayed, its 0.02 credits would replace our 1.2.
    const other = mkdtempSync(join(tmpdir(), 'airlock-other-log-'));
    try {
      seedLog(other, { rows: [spendRow('alk_theirs_1', 0.01)], walRows: [spendRow('alk_theirs_2', 0.01)] });
      copyFileSync(join(other, `${DATABASE_FILE_NAME}-wal`), `${dbPath()}-wal`);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }

    const running = await start();
    const aside = readdirSync(fixture.dataDir).filter((name) => /^requests-foreign-\d{8}T\d{6}Z\.db-wal$/.test(name));
    expect(aside).toHaveLength(1);
    const asidePath = join(fixture.dataDir, aside[0] as string);
    expect(running.logRecovery?.movedTo).toBe(asidePath);
    expect(startupLines(running, { dataDirArgument: null }).join('\n')).toContain(`moved, unread, to ${asidePath}`);
    const alarm = (await status(running)).alarms.find((each) => each.kind === 'log_recovered');
    expect(alarm?.message).toMatch(/belongs to another database/);
    const refused = await chat(running);
    expect(refused.status, refused.body).toBe(402);
    expect(fixture.simulator.received).toHaveLength(0);
  });

  it('leaves a sound log where it is, and a clean close spares the next start the full check', async () => {
    seedLog(fixture.dataDir, { rows: spentToday() });
    const first = await start();
    expect(first.logRecovery).toBeNull();
    expect((await chat(first)).status).toBe(402);
    await first.stop();

    const second = await start();
    expect(second.logRecovery).toBeNull();
    expect(readdirSync(fixture.dataDir).filter((name) => name.includes('damaged'))).toEqual([]);
  });

  it('with nothing read back, daily caps are refused as unknowable until the marker is deleted, not admitted on an empty ledger', async () => {
    seedLog(fixture.dataDir, { rows: spentToday() });
    writeFileSync(dbPath(), Buffer.alloc(statSync(dbPath()).size, 0xab));

    const running = await start();
    expect(running.logRecovery?.recoveredRequests).toBe(0);
    const marker = join(fixture.dataDir, LOST_SPEND_MARKER_FILE_NAME);
    expect(running.logRecovery?.message).toContain(`To accept the loss now, delete ${marker}.`);
    const refused = await chat(running);
    expect(refused.status, refused.body).toBe(507);
    expect(JSON.parse(refused.body).error.code).toBe('ledger_incomplete');
    expect(refused.headers['x-airlock-budget']).toBe('daily');
    expect(fixture.simulator.received).toHaveLength(0);

    // Deleting the marker accepts the loss; the next status read (the window polls it) notices.
    rmSync(marker);
    await status(running);
    const admitted = await chat(running);
    expect(admitted.status, admitted.body).toBe(200);
  });

  it('killed while the rows read back go into the fresh log, the next start refuses capped budgets rather than admit on a log without them', async () => {
    seedLog(fixture.dataDir, { rows: spentToday() });
    overwrite(dbPath(), 0, Buffer.from('this is not a database header any more'));
    const child = spawn(NODE_BINARY, [RECOVER_UNTIL_KILLED, fixture.dataDir], { stdio: 'ignore' });
    const [, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
    expect(signal).toBe('SIGKILL');

    const running = await start();
    const refused = await chat(running);
    expect(refused.status, refused.body).toBe(507);
    expect(JSON.parse(refused.body).error.code).toBe('ledger_incomplete');
    expect(fixture.simulator.received).toHaveLength(0);
  });
});
