import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentSessionSummary } from '../../../proxy/contracts/agentSessions.ts';
import { capturedBodies, endEvent, startEvent, TEST_STARTED_AT_MS } from '../../support/lifecycleEvents.ts';
import { openTempLog, type TempLog } from './tempLog.ts';
import { READ_PATHS } from './readPaths.ts';
import type { WindowReads } from '../../../proxy/store/read/windowReads.ts';

let temp: TempLog;
afterEach(async () => {
  await temp.cleanup();
});

/** A finished request of a session named by Claude Code's header, starting `offsetMs` after the test start. */
function logTurn(requestId: string, sessionId: string, offsetMs: number, overrides: Partial<Parameters<typeof endEvent>[1]> = {}): void {
  temp.events.emit(startEvent(requestId, { startedAtMs: TEST_STARTED_AT_MS + offsetMs }));
  temp.events.emit(
    endEvent(requestId, {
      bodies: capturedBodies({ requestHeaders: { 'x-claude-code-session-id': sessionId } }),
      ...overrides,
    }),
  );
}

/** Every session, page by page of `limit`, following the cursors as the API does. */
async function allPages(limit: number): Promise<AgentSessionSummary[][]> {
  const pages: AgentSessionSummary[][] = [];
  let cursor: { startedAtMs: number; id: string } | undefined;
  for (let guard = 0; guard < 20; guard += 1) {
    const page = await reads().sessions.listSessions({ limit, ...(cursor ? { beforeCursor: cursor } : {}) });
    pages.push(page.sessions);
    const last = page.sessions.at(-1);
    if (!page.hasMore || !last) return pages;
    cursor = { startedAtMs: last.lastStartedAtMs, id: last.id };
  }
  throw new Error('the pages never ended');
}

/** The reads under test: the reader thread's (READ_PATHS), chosen by the run below. */
let reads: () => WindowReads;

describe.each(READ_PATHS)('%s', (_path, readsOf) => {
  beforeEach(() => {
    reads = () => readsOf(temp.log);
  });

  describe('sessions read from the log', () => {
    it("sums a session's turns, cost and errors, and orders sessions by their latest turn", async () => {
      temp = openTempLog();
      logTurn('a1', 'session-a', 0);
      logTurn('b1', 'session-b', 1_000);
      logTurn('a2', 'session-a', 2_000, { status: 429, errorClass: 'rate_limited', usage: null, usageSource: null, costCredits: null });
      logTurn('a3', 'session-a', 3_000, { costCredits: null });
      await temp.log.flush();
      const { sessions, hasMore } = await reads().sessions.listSessions({ limit: 10 });
      expect(hasMore).toBe(false);
      expect(sessions.map((session) => session.id)).toEqual(['session-a', 'session-b']);
      expect(sessions[0]).toEqual({
        id: 'session-a',
        source: 'agent',
        clientName: 'cli',
        firstPrompt: 'hello',
        startedAtMs: TEST_STARTED_AT_MS,
        durationMs: 3_120,
        turns: 3,
        costCredits: 0.25,
        unpricedTurns: 1,
        errors: 1,
        lastStartedAtMs: TEST_STARTED_AT_MS + 3_000,
      });
      expect(await reads().sessions.session('no-such-session')).toBeNull();
    });

    it('pages sessions whose latest turns started at the same moment without losing or repeating one', async () => {
      temp = openTempLog();
      for (const [index, sessionId] of ['s-1', 's-2', 's-3', 's-4', 's-5'].entries()) logTurn(`r${index}`, sessionId, index < 4 ? 500 : 0);
      await temp.log.flush();
      const pages = await allPages(2);
      expect(pages.map((page) => page.map((session) => session.id))).toEqual([['s-4', 's-3'], ['s-2', 's-1'], ['s-5']]);
    });

    it("pages a session's turns oldest first and says how many came before a page", async () => {
      temp = openTempLog();
      for (let turn = 0; turn < 5; turn += 1) logTurn(`t${turn}`, 'long', turn * 100);
      await temp.log.flush();
      const first = await reads().sessions.turns('long', { limit: 2 });
      expect(first).toMatchObject({ turnsBefore: 0, hasMore: true });
      expect(first.rows.map((row) => row.id)).toEqual(['t0', 't1']);
      const cursor = { startedAtMs: TEST_STARTED_AT_MS + 100, id: 't1' };
      const second = await reads().sessions.turns('long', { limit: 2, afterCursor: cursor });
      expect(second).toMatchObject({ turnsBefore: 2, hasMore: true });
      expect(second.rows.map((row) => row.id)).toEqual(['t2', 't3']);
      expect((await reads().sessions.turnsThrough('long', cursor, 4)).map((row) => row.id)).toEqual(['t0', 't1']);
    });

    it('records a derived session for a request without a session header, the same for each turn of its conversation', async () => {
      temp = openTempLog();
      const opening = [{ role: 'user', content: 'Plan the release' }];
      const turns = [opening, [...opening, { role: 'assistant', content: 'First, tag it.' }, { role: 'user', content: 'And then?' }]];
      for (const [index, messages] of turns.entries()) {
        temp.events.emit(startEvent(`c${index}`, { startedAtMs: TEST_STARTED_AT_MS + index, clientName: 'aider' }));
        temp.events.emit(endEvent(`c${index}`, { bodies: capturedBodies({ requestBody: Buffer.from(JSON.stringify({ messages })) }) }));
      }
      await temp.log.flush();
      const { sessions } = await reads().sessions.listSessions({ limit: 10 });
      expect(sessions).toHaveLength(1);
      expect(sessions[0]).toMatchObject({ source: 'derived', clientName: 'aider', turns: 2, firstPrompt: 'Plan the release' });
      expect(sessions[0]?.id).toMatch(/^conv-[0-9a-f]{24}$/);
    });
  });
});
