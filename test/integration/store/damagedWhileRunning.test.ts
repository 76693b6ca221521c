import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { updateProfile } from '../../../proxy/app/profiles/configMutations.ts';
import { openConfigStore } from '../../../proxy/app/profiles/configStore.ts';
import type { Airlock } from '../../../proxy/app/startAirlock.ts';
import { recordCleanClose } from '../../../proxy/store/logCheck.ts';
import { DATABASE_FILE_NAME } from '../../../proxy/store/schema.ts';
import { DAMAGED_SPEND_FILE_NAME } from '../../../proxy/store/write/unwrittenMirror.ts';
import { UNWRITTEN_SPEND_FILE_NAME } from '../../../proxy/store/write/unwrittenSpendFile.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';
import { damagedLogAirlockForEachTest, damagePageHolding, overwrite, PAGE_BYTES, seedLog, spendRow } from './damagedLogFixture.ts';

/** Enough rows of today that their table spans many pages; one in the middle is the one damaged. */
const SEEDED = Array.from({ length: 300 }, (_, index) => spendRow(`alk_seed_${String(index).padStart(4, '0')}`, 0.01));
const DAMAGED_ROW = 'up-alk_seed_0150';
/** Text of a keyed creation's kept answer, found in the file to damage its page. */
const KEYED_ANSWER_MARKER = 'keyed-answer-page';

const fixture = damagedLogAirlockForEachTest();
const { start, chat, createImage, controlGet } = fixture;

/**
 * The log seeded and closed cleanly by a run, then a page damaged at rest and the clean close
 * recorded again: the record matches the file as a fault that keeps its size and time leaves it.
 */
async function seededThenDamagedAfterCleanClose(): Promise<void> {
  seedLog(fixture.dataDir, { rows: SEEDED });
  await (await start()).stop();
  damagePageHolding(fixture.dataDir, DAMAGED_ROW);
  recordCleanClose(fixture.dataDir, DATABASE_FILE_NAME);
}

/** Stops the run and starts Airlock again: that start must set the damaged log aside. */
async function expectSetAsideAtNextStart(running: Airlock): Promise<void> {
  await running.stop();
  expect((await start()).logRecovery?.movedTo).toMatch(/requests-damaged-\d{8}T\d{6}Z\.db$/);
}

/**
 * The notice that the log is damaged and a restart sets it aside: what the log's marking raises. Read
 * from the board, not through /status, whose spend reads would mark the log themselves.
 */
const damageNotice = (running: Airlock): string | undefined =>
  running.noticeBoard.list().find((notice) => notice.kind === 'request_log_failed' && /damaged.*Restart Airlock/.test(notice.cause))?.cause;

/**
 * A page of the log overwritten under the running proxy (a disk or file system fault, another
 * program writing the file), found by the window's reads rather than by a log write: forwarding
 * goes on, the user is told, and the run does not record a clean close over the damage, which
 * made the next start skip its check and then fail on the damaged page.
 */
describe('a request log damaged while Airlock runs, found by a read of the window', () => {
  it('is said, forwarding goes on, and the next start sets it aside and keeps its spend', async () => {
    const said = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    seedLog(fixture.dataDir, { rows: SEEDED });
    const running = await start();
    expect((await chat(running)).status).toBe(200);
    await running.log.flush();

    damagePageHolding(fixture.dataDir, DAMAGED_ROW);
    const listed = await controlGet(running, '/requests?limit=500');
    expect(listed.status, listed.body).toBe(503);
    expect(JSON.parse(listed.body).error.message).toMatch(/request log is damaged.*Restart Airlock/);
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
    said.mockRestore();
    const restarted = await start();
    expect(restarted.logRecovery?.movedTo).toMatch(/requests-damaged-\d{8}T\d{6}Z\.db$/);
    expect(readdirSync(fixture.dataDir).some((name) => /^requests-damaged-/.test(name))).toBe(true);
    // Every seeded row but those on the damaged page is read back, so today's spend still counts them.
    expect(restarted.logRecovery?.recoveredRequests).toBeGreaterThan(SEEDED.length / 2);
    expect((await chat(restarted)).status).toBe(200);
  });
});

/**
 * The agent-session screens read the log on the same connection as the window's request list, but
 * their reads did not mark it damaged: the screen got a 500 reported as a fault in Airlock, no one
 * said the log was damaged or to restart, and unless another read or the close met the same page,
 * the run recorded a clean close over it and the next start skipped its check.
 */
describe('a request log damaged while Airlock runs, found by the agent-session screens', () => {
  it('answers a clear error, and the next start sets the log aside', async () => {
    const said = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      seedLog(fixture.dataDir, { rows: SEEDED.map((row) => ({ ...row, agentSessionId: 'session-damaged' })) });
      const running = await start();
      damagePageHolding(fixture.dataDir, DAMAGED_ROW);

      for (const path of ['/agent-sessions', '/agent-sessions/session-damaged']) {
        const reply = await controlGet(running, path);
        expect(reply.status, reply.body).toBe(503);
        expect(JSON.parse(reply.body).error.message).toMatch(/request log is damaged.*Restart Airlock/);
        expect(reply.body).not.toMatch(/malformed|SQLITE/i);
      }
      expect(damageNotice(running)).toMatch(/malformed/);
      expect((await chat(running)).status).toBe(200);
      expect(running.notices.join('\n')).not.toContain(SENTINEL_KEY);

      await expectSetAsideAtNextStart(running);
    } finally {
      said.mockRestore();
    }
  });
});

/**
 * A keyed image or video creation looks its key up in the log. A damaged page there refused the
 * request (it may have been sent before) with only a notice to free disk space: the log was not
 * marked, so unless another read or the close met the same page, the run recorded a clean close over
 * it, the next start kept the damaged log, and the key stayed unverifiable after the restart the
 * refusal asks for.
 */
describe('a request log damaged while Airlock runs, found by a keyed creation', () => {
  it('refuses the key, says the log is damaged, and the next start sets it aside', async () => {
    const said = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const answer = `{"data":[{"url":"https://x/${KEYED_ANSWER_MARKER}.png"}]}`;
    try {
      seedLog(fixture.dataDir, { rows: SEEDED, answers: [{ profileId: 'main', idempotencyKey: 'image-1', body: answer }] });
      const running = await start();
      damagePageHolding(fixture.dataDir, KEYED_ANSWER_MARKER);

      const refused = await createImage(running, 'image-1');
      expect(refused.status, refused.body).toBe(409);
      expect(JSON.parse(refused.body).error.code).toBe('idempotency_key_unverifiable');
      expect(fixture.simulator.received.filter((received) => received.path === '/v1/images/generations')).toHaveLength(0);
      expect(damageNotice(running)).toMatch(/malformed/);
      // Not also told to free disk space, which would not help a damaged log.
      expect(running.noticeBoard.list().map((notice) => notice.kind)).not.toContain('idempotency_store_failed');

      await expectSetAsideAtNextStart(running);
    } finally {
      said.mockRestore();
    }
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
      seedLog(fixture.dataDir, { rows: SEEDED });
      const running = await start();
      expect((await chat(running)).status).toBe(200);
      await running.log.flush();

      // Every page of the indexes over the requests' ids: each new row's entries go to one of them.
      const dbPath = join(fixture.dataDir, DATABASE_FILE_NAME);
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
    await seededThenDamagedAfterCleanClose();

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
    await seededThenDamagedAfterCleanClose();
    const store = openConfigStore(fixture.dataDir);
    await store.update((config) => updateProfile(config, 'main', { budget: { monthlyCredits: 1_000 } }));
    store.close();
    writeFileSync(join(fixture.dataDir, UNWRITTEN_SPEND_FILE_NAME), '{not json');

    const said = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const restarted = await start();
      expect(restarted.logRecovery?.movedTo).toMatch(/requests-damaged-/);
      const moved = join(fixture.dataDir, DAMAGED_SPEND_FILE_NAME);
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
