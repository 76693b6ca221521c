import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startOfLocalMonthMs } from '../../core/localPeriods.ts';
import { formatCredits } from '../../contracts/amounts.ts';
import type { LedgerGap, UnwrittenStatus } from '../../contracts/log.ts';
import { RESTART_FOR_DAMAGED_LOG } from '../logCheck.ts';
import { readLostSpendMarker } from '../lostSpendMarker.ts';
import { MAX_UNWRITTEN_ROWS } from './unwrittenRows.ts';
import type { SpendEntry, UnwrittenState } from './unwrittenSpend.ts';
import { reserveSpace, unwrittenSpendPath, type SavedSpend, type UnsavedMark } from './unwrittenSpendFile.ts';

/** A damaged record is moved here, so a later save cannot hide that its spend is unknown. */
export const DAMAGED_SPEND_FILE_NAME = 'unwritten-spend.damaged.json';
/** How often the files that stand for lost spend are looked at again, besides at each status read. */
export const LOST_SPEND_RECHECK_MS = 5_000;

/** Spend lost to damage, standing until its month ends or the user deletes `path` to accept the loss. */
interface LostSpend {
  path: string;
  lastLossMs: number;
  reason: string;
}

/**
 * The main thread's view of what the log thread could not write: the spend that totals and
 * budgets add to the database's, what the window and the CLI say about it, and whether spend is
 * missing that no one can account for (then capped budgets are refused).
 */
export class UnwrittenMirror {
  readonly #dataDir: string;
  #state: UnwrittenState | null = null;
  #lost: LostSpend[] = [];
  #recheckTimer: NodeJS.Timeout | null = null;
  /** What a user must know at start about an earlier run's unwritten spend, one notice a cause. */
  readonly startNotices: readonly string[];

  /**
   * `writtenAtOpen`: the saved spend is in the database already, as summary rows. `unsaved`: an
   * earlier run's mark of spend it could not save (takeUnsavedMark), taken before that write.
   * `openedAtMs`: the start, whose month decides which earlier losses still refuse caps.
   */
  constructor(dataDir: string, saved: SavedSpend, writtenAtOpen: boolean, unsaved: UnsavedMark | null, openedAtMs: number) {
    this.#dataDir = dataDir;
    const notices: string[] = [];
    if (saved.kind === 'saved' && writtenAtOpen) {
      notices.push(
        `An earlier run could not write ${sumOf(saved.entries, 'requests')} request(s) to the request log (the disk was full); ` +
          `their spend, ${formatCredits(sumOf(saved.entries, 'costCredits'))} credits, is now in the log as summary rows.`,
      );
    } else if (saved.kind === 'saved') {
      this.#state = {
        entries: saved.entries,
        keptRows: 0,
        foldedRequests: sumOf(saved.entries, 'requests'),
        saved: true,
        saveError: null,
        refusal: null,
      };
      notices.push(
        `An earlier run could not write ${sumOf(saved.entries, 'requests')} request(s) to the request log (the disk was full). ` +
          `Their spend, ${formatCredits(sumOf(saved.entries, 'costCredits'))} credits saved in ${saved.path}, counts in totals and budgets, ` +
          'and is written to the log as summary rows once it has room.',
      );
    } else if (saved.kind === 'none') {
      reserveSpace(dataDir);
    }
    // A record moved aside by an earlier start (or by a log of this start that was then set aside)
    // stands until the user deletes it or its month ends, as its reason says; a newly damaged one replaces it.
    const damaged = saved.kind === 'damaged' ? damagedRecordMovedAside(saved, dataDir) : damagedRecordLeft(dataDir);
    const toldAtStart: LostSpend[] = [];
    if (damaged !== null) {
      toldAtStart.push({ path: damaged.path, lastLossMs: damaged.savedAtMs, reason: damagedReason(damaged.path, damaged.savedAtMs) });
    }
    if (unsaved !== null) {
      toldAtStart.push({ path: unsaved.path, lastLossMs: unsaved.lastLossMs, reason: unsavedReason(unsaved.path, unsaved.lastLossMs) });
    }
    this.#lost.push(...toldAtStart);
    const lostLog = readLostSpendMarker(dataDir);
    if (lostLog !== null) this.#lost.push({ path: lostLog.path, lastLossMs: lostLog.lastLossMs, reason: lostLogReason(lostLog) });
    // A loss from before this month refuses no cap (ledgerGap): dropped now, not told as one that does.
    this.recheckLostSpend(openedAtMs);
    for (const lost of toldAtStart) if (this.#lost.includes(lost)) notices.push(`Capped budgets are refused for now. ${lost.reason}`);
    this.startNotices = notices;
    if (this.#lost.length > 0) {
      this.#recheckTimer = setInterval(() => this.recheckLostSpend(Date.now()), LOST_SPEND_RECHECK_MS);
      this.#recheckTimer.unref();
    }
  }

  /**
   * Drops the losses whose month has ended (deleting their file) or whose file the user deleted.
   * Runs at status reads and on a timer, never per request: budgets read only memory.
   */
  recheckLostSpend(nowMs: number): void {
    if (this.#lost.length === 0) return;
    this.#lost = this.#lost.filter((lost) => {
      // Past the month it covers, no cap's period holds the loss any more.
      if (startOfLocalMonthMs(nowMs) > lost.lastLossMs) rmSync(lost.path, { force: true });
      return existsSync(lost.path);
    });
    if (this.#lost.length === 0) this.close();
  }

  close(): void {
    if (this.#recheckTimer !== null) clearInterval(this.#recheckTimer);
    this.#recheckTimer = null;
  }

  update(state: UnwrittenState): void {
    this.#state = state.entries.length === 0 ? null : state;
  }

  get entries(): readonly SpendEntry[] {
    return this.#state?.entries ?? [];
  }

  status(): UnwrittenStatus | null {
    const state = this.#state;
    if (state === null) return null;
    return {
      requests: sumOf(state.entries, 'requests'),
      costCredits: sumOf(state.entries, 'costCredits'),
      keptRows: state.keptRows,
      foldedRequests: state.foldedRequests,
      saved: state.saved,
    };
  }

  /** What is not in the request log, in words; null when every request is. */
  describe(): string | null {
    const status = this.status();
    if (status === null) return null;
    const file = unwrittenSpendPath(this.#dataDir);
    const kept =
      status.keptRows > 0
        ? ` ${status.keptRows} of their rows wait in memory (at most ${MAX_UNWRITTEN_ROWS.toLocaleString('en-US')}) and are written as soon as there is room.`
        : '';
    const folded = status.foldedRequests > 0 ? ` For ${status.foldedRequests} only the spend is kept, written as summary rows.` : '';
    const counted = status.saved
      ? ` Totals and budgets count them, and their spend is saved in ${file}, so a restart counts it too.`
      : ' Totals and budgets count them while Airlock runs, but their spend could not be saved outside the log, so capped budgets are refused until it can be.';
    const missing = `${status.requests} request(s) costing ${formatCredits(status.costCredits)} credits are not in the request log yet.`;
    // A refusal that is not for want of space is no full disk: freeing space would change nothing.
    const refusal = this.#state?.refusal ?? null;
    if (refusal !== null) {
      const lead = refusal.damaged ? `The request log is damaged (${refusal.cause})` : `The request log refused rows (${refusal.cause})`;
      return `${lead}: ${missing}${kept}${folded}${counted} ${RESTART_FOR_DAMAGED_LOG}.`;
    }
    return `The disk holding ${this.#dataDir} is full (or the log reached its size limit): ${missing}${kept}${folded}${counted} Free disk space to record them.`;
  }

  ledgerGap(nowMs: number): LedgerGap | null {
    const state = this.#state;
    if (state !== null && !state.saved) {
      return {
        lastLossMs: Math.max(...state.entries.map((entry) => entry.dayStartMs)),
        reason:
          `${sumOf(state.entries, 'requests')} request(s) are not written to the request log in ${this.#dataDir} (the disk is full), and their ` +
          `spend could not be saved to ${unwrittenSpendPath(this.#dataDir)} either (${state.saveError ?? 'unknown error'}): a restart would forget it. ` +
          `Free disk space where ${this.#dataDir} is; capped budgets are checked again once the spend is saved.`,
      };
    }
    const lost = this.#lost.find((each) => each.lastLossMs >= startOfLocalMonthMs(nowMs));
    return lost === undefined ? null : { lastLossMs: lost.lastLossMs, reason: lost.reason };
  }
}

/** Moves a damaged record aside; it stays where it is if it cannot be moved. Rename keeps its time, read again at the next start. */
function damagedRecordMovedAside(record: { path: string; savedAtMs: number }, dataDir: string): { path: string; savedAtMs: number } {
  try {
    const aside = join(dataDir, DAMAGED_SPEND_FILE_NAME);
    renameSync(record.path, aside);
    return { path: aside, savedAtMs: record.savedAtMs };
  } catch {
    return record;
  }
}

function damagedRecordLeft(dataDir: string): { path: string; savedAtMs: number } | null {
  const path = join(dataDir, DAMAGED_SPEND_FILE_NAME);
  try {
    return { path, savedAtMs: statSync(path).mtimeMs };
  } catch {
    return null;
  }
}

function unsavedReason(path: string, lastLossMs: number): string {
  return (
    `An earlier run could not save the spend of requests it could not write to its log (the disk was full) before it stopped, ` +
    `so what it spent up to ${new Date(lastLossMs).toLocaleString()} is unknown. Caps whose day or month holds that time are ` +
    `refused until it ends; to accept the loss now, delete ${path}.`
  );
}

function damagedReason(path: string, savedAtMs: number): string {
  return (
    `The record of spend an earlier run could not write to its log is damaged (moved to ${path}), so what it spent up to ` +
    `${new Date(savedAtMs).toLocaleString()} is unknown. Caps whose day or month holds that time are refused until it ends; ` +
    `to accept the loss now, delete ${path}.`
  );
}

function lostLogReason(lost: { path: string; lastLossMs: number; movedTo: string }): string {
  return (
    `The request log was damaged and nothing could be read back from it (moved to ${lost.movedTo}), so what was spent up to ` +
    `${new Date(lost.lastLossMs).toLocaleString()} is unknown. Caps whose day or month holds that time are refused until it ends; ` +
    `to accept the loss now, delete ${lost.path}.`
  );
}

function sumOf(entries: readonly SpendEntry[], field: 'requests' | 'costCredits'): number {
  return entries.reduce((sum, entry) => sum + entry[field], 0);
}
