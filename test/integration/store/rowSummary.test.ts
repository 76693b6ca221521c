import { afterEach, describe, expect, it } from 'vitest';
import { MAX_PAGE_LIMIT } from '../../../proxy/contracts/log.ts';
import { capturedBodies, endEvent, startEvent, TEST_NOW_MS } from '../../support/lifecycleEvents.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';
import { openTempLog, type TempLog } from './tempLog.ts';

let temp: TempLog;
afterEach(async () => {
  await temp.cleanup();
});

const rows = () => temp.log.listRequests({ fromMs: 0, toMs: TEST_NOW_MS, limit: MAX_PAGE_LIMIT }).rows;

describe("a row's agent session and summary, recorded at ingest", () => {
  it('keeps the session header and the first line of the last user message, masked', async () => {
    temp = openTempLog({ knownSecrets: () => [SENTINEL_KEY] });
    temp.events.emit(startEvent('claude'));
    temp.events.emit(
      endEvent('claude', {
        bodies: capturedBodies({
          requestHeaders: { 'content-type': 'application/json', 'x-claude-code-session-id': 'f3a1-session' },
          requestBody: Buffer.from(
            JSON.stringify({ messages: [{ role: 'user', content: `Use key ${SENTINEL_KEY} to call it\nsecond line` }] }),
          ),
        }),
      }),
    );
    await temp.log.flush();
    const [row] = rows();
    expect(row?.agentSessionId).toBe('f3a1-session');
    expect(row?.summary).toMatch(/^Use key .+ to call it$/);
    expect(row?.summary).not.toContain(SENTINEL_KEY);
  });

  it("completes a stream's row written in flight, from its assembled text when the prompt has none", async () => {
    temp = openTempLog();
    temp.events.emit(startEvent('codex', { stream: true, protocol: 'responses' }));
    // A stream's row is written at once: the end must update the new columns too.
    await temp.log.flush();
    expect(rows()[0]).toMatchObject({ state: 'in_flight', agentSessionId: null, summary: null });
    temp.events.emit(
      endEvent('codex', {
        bodies: capturedBodies({
          requestHeaders: { 'session-id': 'codex-77' },
          requestBody: Buffer.from(JSON.stringify({ input: [{ role: 'developer', content: 'rules' }] })),
          responseBody: Buffer.from('data: {}\n\n'),
          streamText: 'Here is the plan\n1. read',
        }),
      }),
    );
    await temp.log.flush();
    expect(rows()[0]).toMatchObject({ state: 'done', agentSessionId: 'codex-77', summary: 'Here is the plan' });
  });

  it('tells its listeners the summaries of ended requests, masked as written, and nothing for one still running', async () => {
    temp = openTempLog({ knownSecrets: () => [SENTINEL_KEY] });
    const told: Array<{ requestId: string; summary: string }> = [];
    const firstTold = new Promise<void>((resolve) =>
      temp.log.onRowSummaries((summaries) => {
        told.push(...summaries);
        resolve();
      }),
    );
    temp.events.emit(startEvent('running'));
    temp.events.emit(startEvent('ended'));
    temp.events.emit(
      endEvent('ended', {
        bodies: capturedBodies({
          requestBody: Buffer.from(JSON.stringify({ messages: [{ role: 'user', content: `Rotate ${SENTINEL_KEY} today` }] })),
        }),
      }),
    );
    await firstTold;
    expect(told).toEqual([{ requestId: 'ended', summary: expect.stringMatching(/^Rotate .+ today$/) }]);
    expect(told[0]?.summary).not.toContain(SENTINEL_KEY);
  });
});
