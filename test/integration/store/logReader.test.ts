import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SpendResponse } from '../../../proxy/contracts/spend.ts';
import { toApiError } from '../../../proxy/app/control/http.ts';
import { PLAIN_HINT } from '../../../proxy/contracts/cli.ts';
import { holdReadsOfNewReaderThreads, LogReader, LogReaderUnavailableError } from '../../../proxy/store/read/logReader.ts';
import { DATABASE_FILE_NAME, openLogDatabase } from '../../../proxy/store/schema.ts';
import { setUpMainProfileAndAgent, startControlHarness, type ControlHarness } from '../../support/controlHarness.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { openTempLog } from './tempLog.ts';

/** The hook's two Int32s: [0] lets held reads through once 1, [1] counts the reads that reached the hold. */
function holdSignal(): { signal: SharedArrayBuffer; view: Int32Array; release(): void } {
  const signal = new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT);
  const view = new Int32Array(signal);
  return {
    signal,
    view,
    release() {
      Atomics.store(view, 0, 1);
      Atomics.notify(view, 0);
    },
  };
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  holdReadsOfNewReaderThreads(null);
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe("the window's reads of the log, on the reader thread", () => {
  it('hold up no forwarded request: a chat completes while a month of spend is being read', async () => {
    const hold = holdSignal();
    holdReadsOfNewReaderThreads(hold.signal);
    const harness: ControlHarness = await startControlHarness();
    cleanups.push(() => harness.close());
    const token = await setUpMainProfileAndAgent(harness);
    const forward = (body: string) =>
      rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
        body,
      });
    expect((await forward(chatBody())).status).toBe(200);

    let spendAnswered = false;
    const spend = harness.api('/spend?range=30d').then((response) => {
      spendAnswered = true;
      return response;
    });
    // The Spend screen's reads are inside the reader thread, held there.
    await expect.poll(() => Atomics.load(hold.view, 1)).toBeGreaterThan(0);

    const plain = await forward(chatBody());
    const streamed = await forward(chatBody({ stream: true }));
    expect(plain.status, plain.body).toBe(200);
    expect(streamed.status, streamed.body).toBe(200);
    expect(streamed.body).toContain('[DONE]');
    expect(spendAnswered).toBe(false);

    hold.release();
    const answer = await spend;
    expect(answer.status).toBe(200);
    const screen = (await answer.json()) as SpendResponse;
    expect(screen.range).toBe('30d');
    expect(screen.perModel.length).toBeGreaterThan(0);
  });

  it('fail with a clear error when the thread dies, shown by the window as unavailable, and the next read starts a new thread', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'airlock-reader-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const threadErrors: Error[] = [];
    // No log file yet: the thread cannot open its connection and dies before answering.
    const reader = new LogReader({
      databasePath: join(dataDir, DATABASE_FILE_NAME),
      knownSecrets: () => [],
      onError: (error) => threadErrors.push(error),
    });
    cleanups.push(() => reader.close());

    const failed = await reader.reads.totals({ fromMs: 0, toMs: 1 }).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(LogReaderUnavailableError);
    expect((failed as Error).message).toMatch(/reader thread stopped before answering\. Try again/);
    const shown = toApiError(failed, PLAIN_HINT.command);
    expect([shown.code, shown.message]).toEqual(['unavailable', (failed as Error).message]);
    expect(threadErrors.map((error) => error.message).join('\n')).toMatch(/unable to open database file/);

    openLogDatabase({ dataDir }).close();
    expect((await reader.reads.totals({ fromMs: 0, toMs: 1 })).requests).toBe(0);
  });

  it('end with the log: a read waiting on the thread fails, it does not hang, and reads after it fail at once', async () => {
    const hold = holdSignal();
    holdReadsOfNewReaderThreads(hold.signal);
    const temp = openTempLog();
    cleanups.push(() => temp.cleanup());
    const waiting = temp.log.reads.facets({}).catch((error: unknown) => error);
    await expect.poll(() => Atomics.load(hold.view, 1)).toBe(1);

    await temp.log.close();
    const failed = await waiting;
    expect(failed).toBeInstanceOf(LogReaderUnavailableError);
    expect((failed as Error).message).toBe('The request log was closed before this read was answered.');
    await expect(temp.log.reads.facets({})).rejects.toThrow('The request log is closed.');
  });
});
