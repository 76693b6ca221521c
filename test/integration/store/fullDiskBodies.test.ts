import { describe, expect, it, vi } from 'vitest';
import { chatBody, JSON_HEADERS, rawRequest, sseData } from '../../support/http.ts';
import { fullDiskForEachTest } from './fullDiskAirlock.ts';

/** Enough requests that the full log turns bodies off and keeps rows waiting in memory. */
const REQUESTS = 30;

const disk = fullDiskForEachTest();

/**
 * Space freed while Airlock runs, as its alarm asks: request bodies are logged again by themselves,
 * and the alarm stops calling the disk full. They came back only at the next retention run, up to
 * ten minutes later, and meanwhile the window said the disk was full and no body was kept.
 */
describe('a full disk freed while Airlock runs', () => {
  it('logs request bodies again without a restart, and the alarm no longer says the disk is full', async () => {
    const printed = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const run = await disk.start();
    await run.chat(disk.agentToken, REQUESTS);

    // A stream relayed while the log cannot take it reaches its client whole, and its spend counts.
    const streamEnded = run.ends.length + 1;
    const streamed = await rawRequest(`${run.airlock.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${disk.agentToken}` },
      body: chatBody({ stream: true }),
    });
    expect(streamed.status).toBe(200);
    expect(sseData(streamed.body).at(-1)).toBe('[DONE]');
    await expect.poll(() => run.ends.length).toBe(streamEnded);
    expect(run.ends.at(-1)?.costCredits).toBeGreaterThan(0);
    await run.airlock.log.flush();
    expect(run.airlock.log.status()).toMatchObject({ bodiesDisabled: true });
    const spent = run.ends.reduce((sum, end) => sum + (end.costCredits ?? 0), 0);
    expect((await run.status()).todaySpend.credits).toBeCloseTo(spent, 12);

    disk.freeSpace();
    await expect.poll(() => run.airlock.log.status().bodiesDisabled).toBe(false);
    expect((await run.status()).alarms.filter((alarm) => alarm.kind === 'log_degraded')).toEqual([]);
    expect((await run.status()).todaySpend.credits).toBeCloseTo(spent, 12);

    await run.chat(disk.freeToken);
    await run.airlock.log.flush();
    const after = run.airlock.log.getRequest(run.ends.at(-1)?.requestId ?? '');
    expect(after?.bodies?.requestBody).toContain('"messages"');
    expect(after?.row.notes.filter((note) => note.startsWith('Bodies not kept'))).toEqual([]);
    printed.mockRestore();
  });
});
