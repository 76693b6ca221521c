import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it, vi } from 'vitest';
import { startOfLocalDayMs } from '../../../proxy/core/localPeriods.ts';
import { DATABASE_FILE_NAME } from '../../../proxy/store/schema.ts';
import { DAMAGED_SPEND_FILE_NAME } from '../../../proxy/store/write/unwrittenMirror.ts';
import { SUMMARY_ROW_PATH } from '../../../proxy/store/write/unwrittenRows.ts';
import { UNSAVED_LOST_FILE_NAME, UNWRITTEN_SPEND_FILE_NAME } from '../../../proxy/store/write/unwrittenSpendFile.ts';
import { fullDiskForEachTest, type FullDisk, type RunningAirlock } from './fullDiskAirlock.ts';

const REQUESTS = 30;

const disk = fullDiskForEachTest();

/** What the database holds, read as the next start's ledger reads it. */
function loggedSpend(full: FullDisk): number {
  const db = new DatabaseSync(path.join(full.dataDir, DATABASE_FILE_NAME), { readOnly: true });
  try {
    return Number(db.prepare('SELECT TOTAL(cost_credits) AS credits FROM requests').get()?.credits);
  } finally {
    db.close();
  }
}

const spentBy = (run: RunningAirlock): number => run.ends.reduce((sum, end) => sum + (end.costCredits ?? 0), 0);
const todayRows = (run: RunningAirlock): number =>
  run.airlock.log.listRequests({ fromMs: startOfLocalDayMs(Date.now()), limit: 500 }).rows.length;

describe('a full disk while requests are forwarded', () => {
  it('keeps the rows it cannot write, counts their spend everywhere, says so, and writes them when space returns', async () => {
    // What `airlock serve` prints as the recording changes.
    const printed = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const run = await disk.start();
    const replies = await run.chat(disk.agentToken, REQUESTS);
    expect(replies.every((reply) => reply.status === 200)).toBe(true);
    await run.airlock.log.flush();
    const spent = spentBy(run);
    expect(spent).toBeGreaterThan(0);

    // Most rows could not be written; their spend is counted all the same.
    expect(todayRows(run)).toBeLessThan(REQUESTS);
    const status = await run.status();
    expect(status.todaySpend.credits).toBeCloseTo(spent, 12);
    expect(run.airlock.spendGate.ledger.totals({ kind: 'profile', profileId: 'main' }, Date.now()).dayCredits).toBeCloseTo(spent, 12);
    const logAlarm = status.alarms.find((alarm) => alarm.kind === 'log_degraded')?.message ?? '';
    expect(logAlarm).toContain(`The disk holding ${disk.dataDir} is full`);
    expect(logAlarm).toMatch(/request\(s\) costing [\d.]+ credits are not in the request log yet/);
    expect(logAlarm).toContain(`their spend is saved in ${path.join(disk.dataDir, UNWRITTEN_SPEND_FILE_NAME)}`);
    expect(logAlarm).not.toContain('figures are logged');
    const unwritten = run.airlock.log.status().unwritten;
    expect(unwritten).toMatchObject({ requests: REQUESTS - todayRows(run), saved: true });
    expect(unwritten?.costCredits).toBeGreaterThan(0);

    disk.freeSpace();
    await run.airlock.log.flush();
    expect(todayRows(run)).toBe(REQUESTS);
    expect(run.airlock.log.status()).toMatchObject({ unwritten: null, ledgerGap: null });
    expect(existsSync(path.join(disk.dataDir, UNWRITTEN_SPEND_FILE_NAME))).toBe(false);
    expect((await run.status()).todaySpend.credits).toBeCloseTo(spent, 12);
    const said = printed.mock.calls.map((call) => String(call[0]));
    printed.mockRestore();
    expect(said.find((line) => line.includes('are not in the request log yet'))).toMatch(
      /^\[airlock\] request log: .*The disk holding .* is full/,
    );
    expect(said.at(-1)).toMatch(/^\[airlock\] request log: .*Every request and its figures are logged\.$/);
  });

  it('starts and forwards after a crash left rows in flight that the full disk cannot mark interrupted', async () => {
    const crashed = new DatabaseSync(path.join(disk.dataDir, DATABASE_FILE_NAME));
    try {
      const insert = crashed.prepare(
        `INSERT INTO requests (id, started_at_ms, method, client_path, upstream_path, protocol, protocol_mode, state, cost_credits)
         VALUES (?, ?, 'POST', '/v1/chat/completions', '', 'openai', 'native', 'in_flight', 0.5)`,
      );
      for (let index = 0; index < 300; index += 1) insert.run(`alk_in_flight_${index}`, Date.now() - index);
    } finally {
      crashed.close();
    }
    disk.fill();
    const printed = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    let current: RunningAirlock;
    try {
      current = await disk.start();
    } finally {
      printed.mockRestore();
    }
    const [answered] = await current.chat(disk.freeToken);
    expect(answered?.status, answered?.body).toBe(200);
    // Their spend still counts while they wait to be marked.
    expect((await current.status()).todaySpend.credits).toBeGreaterThanOrEqual(150);
  });

  it('a restart counts the spend it could not write, so a daily cap holds', async () => {
    let current = await disk.start();
    await current.chat(disk.agentToken, REQUESTS);
    await current.airlock.log.flush();
    const spent = spentBy(current);
    await current.airlock.stop();

    // A cap below what was spent today: the restarted proxy must know it is reached. The disk is
    // still full, so that spend is only in the saved record.
    await disk.setMainBudget({ dailyCredits: spent * 0.9 });
    disk.fill();
    current = await disk.start();
    expect(current.airlock.log.status().unwritten?.costCredits).toBeCloseTo(spent - loggedSpend(disk), 12);
    expect(current.airlock.notices.join('\n')).toMatch(/An earlier run could not write \d+ request\(s\) to the request log/);
    const [refused] = await current.chat(disk.agentToken);
    expect(refused?.status, refused?.body).toBe(402);
    expect(JSON.parse(refused?.body ?? '{}').error.code).toBe('budget_exceeded');
    expect((await current.status()).todaySpend.credits).toBeCloseTo(spent, 12);

    // Once there is room, the spend becomes summary rows in the log, counted once.
    disk.freeSpace();
    await current.airlock.log.flush();
    expect(current.airlock.log.status().unwritten).toBeNull();
    expect(existsSync(path.join(disk.dataDir, UNWRITTEN_SPEND_FILE_NAME))).toBe(false);
    expect((await current.status()).todaySpend.credits).toBeCloseTo(spent, 12);
  });

  it('a restart with room again writes the saved spend to the log at once, as summary rows', async () => {
    let current = await disk.start();
    await current.chat(disk.agentToken, REQUESTS);
    await current.airlock.log.flush();
    const spent = spentBy(current);
    await current.airlock.stop();

    disk.freeSpace();
    await disk.setMainBudget({ dailyCredits: spent * 0.9 });
    current = await disk.start();
    expect(current.airlock.notices.join('\n')).toMatch(/their spend, [\d.]+ credits, is now in the log as summary rows/);
    expect(current.airlock.log.status().unwritten).toBeNull();
    expect(existsSync(path.join(disk.dataDir, UNWRITTEN_SPEND_FILE_NAME))).toBe(false);
    expect(loggedSpend(disk)).toBeCloseTo(spent, 12);
    const summary = current.airlock.log.listRequests({ limit: 500 }).rows.find((row) => row.clientPath === SUMMARY_ROW_PATH);
    expect(summary?.notes[0]).toMatch(/^Stands for \d+ request\(s\) of this day whose rows could not be written/);
    const [refused] = await current.chat(disk.agentToken);
    expect(refused?.status, refused?.body).toBe(402);
  });

  it('refuses capped profiles, naming the data directory, while that spend cannot be saved either', async () => {
    // Nothing can be saved where the record goes: its temporary file's name is taken by a directory.
    mkdirSync(path.join(disk.dataDir, `${UNWRITTEN_SPEND_FILE_NAME}.tmp`, 'occupied'), { recursive: true });
    await disk.setMainBudget({ dailyCredits: 1_000 });
    const current = await disk.start();
    await current.chat(disk.agentToken, REQUESTS);
    await current.airlock.log.flush();
    expect(current.airlock.log.status().unwritten).toMatchObject({ saved: false });

    const [refused] = await current.chat(disk.agentToken);
    expect(refused?.status, refused?.body).toBe(507);
    const error = JSON.parse(refused?.body ?? '{}').error;
    expect(error.code).toBe('ledger_incomplete');
    expect(error.message).toContain("daily cap of 1,000 credits for profile 'main' cannot be checked");
    expect(error.message).toContain(`Free disk space where ${disk.dataDir} is`);
    const status = await current.status();
    expect(status.alarms.map((alarm) => alarm.kind)).toContain('ledger_incomplete');
    // A profile without a cap spends nothing it could overrun: it is still served.
    const [served] = await current.chat(disk.freeToken);
    expect(served?.status, served?.body).toBe(200);

    // Space returns: the rows are written and the cap is checked again.
    disk.freeSpace();
    await current.airlock.log.flush();
    expect(current.airlock.log.status().ledgerGap).toBeNull();
    const [admitted] = await current.chat(disk.agentToken);
    expect(admitted?.status, admitted?.body).toBe(200);
  });

  it('a restart after a run that could not save that spend keeps caps refused, not passed on what was saved', async () => {
    mkdirSync(path.join(disk.dataDir, `${UNWRITTEN_SPEND_FILE_NAME}.tmp`, 'occupied'), { recursive: true });
    await disk.setMainBudget({ dailyCredits: 1_000 });
    let current = await disk.start();
    await current.chat(disk.agentToken, REQUESTS);
    await current.airlock.log.flush();
    expect(current.airlock.log.status().unwritten).toMatchObject({ saved: false });
    // Stopped (or killed) while the disk is still full: the rows it held in memory are gone.
    await current.airlock.stop();

    rmSync(path.join(disk.dataDir, `${UNWRITTEN_SPEND_FILE_NAME}.tmp`), { recursive: true });
    disk.fill();
    current = await disk.start();
    const [refused] = await current.chat(disk.agentToken);
    expect(refused?.status, refused?.body).toBe(507);
    expect(JSON.parse(refused?.body ?? '{}').error.code).toBe('ledger_incomplete');
    expect(current.airlock.notices.join('\n')).toContain('could not save');
    await current.airlock.stop();

    // With room again, the saved part goes into the log, and the loss still stands until accepted.
    disk.freeSpace();
    current = await disk.start();
    const [stillRefused] = await current.chat(disk.agentToken);
    expect(stillRefused?.status, stillRefused?.body).toBe(507);
    rmSync(path.join(disk.dataDir, UNSAVED_LOST_FILE_NAME));
    await current.status();
    const [admitted] = await current.chat(disk.agentToken);
    expect(admitted?.status, admitted?.body).toBe(200);
  });

  it('a damaged record of unwritten spend keeps caps refused until it is deleted', async () => {
    writeFileSync(path.join(disk.dataDir, UNWRITTEN_SPEND_FILE_NAME), '{"version":1,"entr');
    disk.freeSpace();
    await disk.setMainBudget({ monthlyCredits: 1_000 });
    const current = await disk.start();
    const moved = path.join(disk.dataDir, DAMAGED_SPEND_FILE_NAME);
    expect(current.airlock.notices.join('\n')).toContain(`is damaged (moved to ${moved})`);
    expect(readFileSync(moved, 'utf8')).toContain('entr');

    const [refused] = await current.chat(disk.agentToken);
    expect(refused?.status, refused?.body).toBe(507);
    expect(JSON.parse(refused?.body ?? '{}').error.message).toContain(`to accept the loss now, delete ${moved}`);

    // Deleting it is how the user accepts the loss.
    rmSync(moved);
    // Noticed at the next status read (the window polls it) or recheck, never looked up per request.
    await current.status();
    const [admitted] = await current.chat(disk.agentToken);
    expect(admitted?.status, admitted?.body).toBe(200);
  });
});
