import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it, vi } from 'vitest';
import { compactingCollector, DEFAULT_RECLAIM_OPTIONS, startMemoryReclaimer } from '../../../proxy/core/memoryReclaimer.ts';
import { bodiesNotKeptNote } from '../../../proxy/store/write/logBacklog.ts';
import { LogThreadClient, RequestLogStoppedError, type LogThreadOptions } from '../../../proxy/store/write/logThreadClient.ts';
import { SUMMARY_ROW_PATH } from '../../../proxy/store/write/unwrittenRows.ts';
import { capturedBodies, endEvent, startEvent } from '../../support/lifecycleEvents.ts';
import { tempDirPerTest } from './tempLog.ts';

const dataDir = tempDirPerTest('airlock-log-thread-');

function clientWith(overrides: Partial<LogThreadOptions>, errors: unknown[]): LogThreadClient {
  return new LogThreadClient({
    dataDir: dataDir(),
    bodyCapBytes: 1024,
    postIntervalMs: 5,
    knownSecrets: () => [],
    onError: (error) => errors.push(error),
    onBodiesState: () => undefined,
    ...overrides,
  });
}

/** How many log threads the out-of-descriptors fixture started in this test's data directory. */
const threadStarts = (): number => {
  try {
    return readFileSync(join(dataDir(), 'starts'), 'utf8').split('\n').length - 1;
  } catch {
    return 0;
  }
};

const messages = (errors: unknown[]): string[] => errors.map((error) => (error instanceof Error ? error.message : String(error)));

describe('LogThreadClient', () => {
  it('starts a thread that died again, a few times, then says logging stopped, and never leaves a flush waiting', async () => {
    const errors: unknown[] = [];
    const client = clientWith({ threadUrl: new URL('./fixtures/failingLogThread.ts', import.meta.url) }, errors);
    const gaveUp = (): boolean => messages(errors).some((message) => message.includes('no longer logged'));
    await expect.poll(gaveUp).toBe(true);

    const said = messages(errors);
    expect(said.filter((message) => message.includes('could not open its database'))).toHaveLength(4);
    expect(said.filter((message) => message.includes('a new one logs the requests that follow'))).toHaveLength(3);
    expect(said.at(-1)).toMatch(/stopped several times in a row; requests are no longer logged until Airlock restarts/);
    // Its own kind of error: the window keeps it apart from minor failures (requestLogNoticeKind).
    expect(errors.at(-1)).toBeInstanceOf(RequestLogStoppedError);
    client.enqueue(startEvent('after'));
    await expect(client.flush()).resolves.toBeUndefined();
    await expect(client.close()).resolves.toBeUndefined();
  });

  it('starts a thread that died for want of file descriptors again once they free, however often it died, and never leaves a flush waiting', async () => {
    const errors: unknown[] = [];
    const marker = join(dataDir(), 'out-of-descriptors');
    writeFileSync(marker, '');
    const client = clientWith(
      { threadUrl: new URL('./fixtures/outOfDescriptorsLogThread.ts', import.meta.url), restartAfterOutOfDescriptorsMs: 5 },
      errors,
    );
    // More deaths than MAX_RESTARTS: none counts toward giving up.
    await expect.poll(() => threadStarts()).toBeGreaterThan(4);
    // Said once, not at each death: a thread dies each second while descriptors stay short, and each
    // new cause on the board was a new notice, an OS notification while the window is closed.
    expect(messages(errors)).toEqual([
      'the request log thread stopped for want of file descriptors (Cannot read package config /work/package.json: too many open files.); a new one starts each second until they free',
    ]);
    await expect(client.flush()).resolves.toBeUndefined();
    expect(errors.some((error) => error instanceof RequestLogStoppedError)).toBe(false);

    rmSync(marker);
    // Events posted while no thread runs are lost, as at any death: each try posts its own request.
    let tries = 0;
    await expect
      .poll(async () => {
        tries += 1;
        client.enqueue(startEvent(`after-${tries}`));
        client.enqueue(endEvent(`after-${tries}`));
        await client.flush();
        const db = new DatabaseSync(join(dataDir(), 'requests.db'));
        try {
          return (db.prepare('SELECT count(*) AS rows FROM requests').get() as { rows: number }).rows;
        } catch {
          return 0;
        } finally {
          db.close();
        }
      })
      .toBeGreaterThan(0);
    await expect(client.close()).resolves.toBeUndefined();
    expect(errors.some((error) => error instanceof RequestLogStoppedError)).toBe(false);
  });

  it('does not count what it posts while no thread runs as waiting work: no thread will take it in, so the log fell behind for good', async () => {
    const errors: unknown[] = [];
    writeFileSync(join(dataDir(), 'out-of-descriptors'), '');
    const client = clientWith(
      {
        threadUrl: new URL('./fixtures/outOfDescriptorsLogThread.ts', import.meta.url),
        // The restart never comes within the test: every post below meets no thread.
        restartAfterOutOfDescriptorsMs: 3_600_000,
        // Any batch counted as waiting is over it.
        backlogBytes: () => 1,
      },
      errors,
    );
    // Said as the thread exits, when the restart is set.
    await expect.poll(() => messages(errors).some((message) => message.includes('for want of file descriptors'))).toBe(true);
    for (const id of ['a', 'b']) {
      client.enqueue(startEvent(id));
      client.enqueue(endEvent(id, { bodies: capturedBodies() }));
      await client.flush();
    }
    expect(client.behindReason).toBeNull();
    expect(client.foldsRequests).toBe(false);
    await client.close();
  });

  it("has this thread's reclaimer trim once the log thread says it released memory", async () => {
    const trim = vi.fn();
    // Trims only when asked: it never collects, and idle at every check.
    const options = { ...DEFAULT_RECLAIM_OPTIONS, checkIntervalMs: 10, maxIdleUtilization: 1, startupCollectionMs: null };
    const reclaimer = startMemoryReclaimer(() => false, options, null, trim);
    const errors: unknown[] = [];
    const client = clientWith({ threadUrl: new URL('./fixtures/releasingLogThread.ts', import.meta.url) }, errors);
    try {
      // The thread says `released` before it answers the flush.
      await client.flush();
      await expect.poll(() => trim.mock.calls.length, { timeout: 10_000 }).toBe(1);
    } finally {
      reclaimer.stop();
      await client.close();
    }
    expect(errors).toEqual([]);
  });

  it('answers a flush once everything posted before it is written', async () => {
    const errors: unknown[] = [];
    const client = clientWith({}, errors);
    client.enqueue(startEvent('r1'));
    client.enqueue(endEvent('r1'));
    await client.flush();
    await client.close();
    const db = new DatabaseSync(join(dataDir(), 'requests.db'));
    expect(db.prepare('SELECT id, state FROM requests').all()).toEqual([{ id: 'r1', state: 'done' }]);
    db.close();
    expect(errors).toEqual([]);
  });

  it('keeps no queued event alive while it waits for the post, and still writes it', async () => {
    // Events held until the post survived every young-generation collection meanwhile (DESIGN.md).
    const collect = compactingCollector();
    if (collect === null) throw new Error('this test needs V8 gc');
    const errors: unknown[] = [];
    const client = clientWith({ postIntervalMs: 60_000 }, errors);
    const queued = ((): WeakRef<object> => {
      const end = endEvent('r1', { bodies: capturedBodies({ requestBody: Buffer.from('{"model":"m"}') }) });
      client.enqueue(startEvent('r1'));
      client.enqueue(end);
      return new WeakRef(end);
    })();
    // A WeakRef keeps its target until the current job ends.
    await new Promise((resolve) => setImmediate(resolve));
    collect();
    expect(queued.deref()).toBeUndefined();
    await client.flush();
    await client.close();
    const db = new DatabaseSync(join(dataDir(), 'requests.db'));
    expect(db.prepare('SELECT id, state FROM requests').all()).toEqual([{ id: 'r1', state: 'done' }]);
    expect(db.prepare('SELECT request_body FROM request_bodies').all()).toHaveLength(1);
    db.close();
    expect(errors).toEqual([]);
  });

  it('writes folded spend as summary rows and notes on a row that its bodies were not kept (the real thread)', async () => {
    const errors: unknown[] = [];
    // Below zero, any queue is over budget: the client folds whole requests; Infinity posts everything.
    let budgetBytes = Number.POSITIVE_INFINITY;
    const client = clientWith({ backlogBytes: () => budgetBytes }, errors);
    client.enqueue(startEvent('begun', { stream: true }));
    await client.flush();
    budgetBytes = -1;
    client.enqueue(startEvent('folded'));
    client.enqueue(endEvent('folded', { costCredits: 1.25 }));
    client.enqueue(endEvent('begun', { costCredits: 2 }));
    await expect.poll(() => client.foldedSpend()).toMatchObject([{ requests: 1, costCredits: 1.25 }]);
    budgetBytes = Number.POSITIVE_INFINITY;
    await client.flush();
    await expect.poll(() => client.foldedSpend()).toEqual([]);
    await client.close();

    const db = new DatabaseSync(join(dataDir(), 'requests.db'));
    const rows = db.prepare('SELECT id, client_path, cost_credits, notes FROM requests ORDER BY cost_credits').all();
    db.close();
    expect(rows.map((row) => row.id)).not.toContain('folded');
    const summary = rows.find((row) => row.client_path === SUMMARY_ROW_PATH);
    expect(summary).toMatchObject({ cost_credits: 1.25 });
    expect(String(summary?.notes)).toMatch(/Stands for 1 request\(s\) .*fell behind/);
    const begun = rows.find((row) => row.id === 'begun');
    expect(begun).toMatchObject({ cost_credits: 2 });
    expect(JSON.parse(String(begun?.notes))).toEqual([expect.stringMatching(/^Bodies not kept: the request log had over/)]);
    expect(errors).toEqual([]);
  });

  describe('while the thread is behind (a stand-in that takes nothing in until a flush)', () => {
    const BACKLOG_BYTES = 3_000;
    const stalledClient = (errors: unknown[]): LogThreadClient =>
      clientWith({ threadUrl: new URL('./fixtures/stalledLogThread.ts', import.meta.url), backlogBytes: () => BACKLOG_BYTES }, errors);
    const reports = (errors: unknown[]): string[] => messages(errors).filter((message) => /^(batch|fold) /.test(message));
    const withBody = (id: string) => endEvent(id, { bodies: capturedBodies({ requestBody: Buffer.alloc(1_000, 'a') }) });
    /** Enqueues one whole request and waits until its batch is reported. */
    const postAndWait = async (client: LogThreadClient, errors: unknown[], id: string): Promise<string | undefined> => {
      const before = reports(errors).length;
      client.enqueue(startEvent(id));
      client.enqueue(withBody(id));
      await expect.poll(() => reports(errors).length).toBeGreaterThan(before);
      return reports(errors).at(-1);
    };

    it('counts a batch as the whole buffer the thread holds until it is written, its unused end included', async () => {
      const errors: unknown[] = [];
      const client = stalledClient(errors);
      client.enqueue(startEvent('large'));
      // Fills more than half of the 64 KiB first buffer, so the buffer goes as it is.
      client.enqueue(endEvent('large', { bodies: capturedBodies({ requestBody: Buffer.alloc(40_000, 'a') }) }));
      await expect.poll(() => messages(errors).find((message) => message.startsWith('held '))).toBeDefined();
      expect(messages(errors).find((message) => message.startsWith('held '))).toBe('held queuedBytes=65536 bufferBytes=65536');
      await client.close();
    });

    it('first leaves bodies out, saying so in the row, keeps rows, and sends bodies again once it caught up', async () => {
      const errors: unknown[] = [];
      const client = stalledClient(errors);
      expect(await postAndWait(client, errors, 'first')).toBe('batch withBodies=true bodiesCarried=true ids=first notes=[]');
      expect(client.behindReason).toBeNull();
      expect(await postAndWait(client, errors, 'behind')).toBe(
        `batch withBodies=false bodiesCarried=false ids=behind notes=${JSON.stringify([bodiesNotKeptNote(BACKLOG_BYTES)])}`,
      );
      expect(client.behindReason).toMatch(/fell behind .* request bodies are not kept until it catches up/);

      await client.flush();
      expect(await postAndWait(client, errors, 'caught up')).toBe('batch withBodies=true bodiesCarried=true ids=caught up notes=[]');
      expect(client.behindReason).toBeNull();
      await client.close();
    });

    it('keeps the request headers of an end whose bodies it leaves out: an agent names its session there', async () => {
      const errors: unknown[] = [];
      const client = stalledClient(errors);
      await postAndWait(client, errors, 'first');
      const headers = { 'content-type': 'application/json', 'x-claude-code-session-id': 'session-7' };
      client.enqueue(startEvent('behind'));
      client.enqueue(endEvent('behind', { bodies: capturedBodies({ requestHeaders: headers, requestBody: Buffer.alloc(1_000, 'a') }) }));
      const endReport = (): string | undefined => messages(errors).find((message) => message.startsWith('end behind '));
      await expect.poll(endReport).toBeDefined();
      expect(reports(errors).at(-1)).toMatch(/^batch withBodies=false bodiesCarried=false ids=behind /);
      expect(endReport()).toBe(`end behind requestHeaders=${JSON.stringify(headers)}`);
      await client.close();
    });

    it('past the whole budget folds whole requests into their spend, posts the rest of those it began, and writes the spend once it caught up', async () => {
      const errors: unknown[] = [];
      const steps: (string | null)[] = [];
      const client: LogThreadClient = clientWith(
        {
          threadUrl: new URL('./fixtures/stalledLogThread.ts', import.meta.url),
          backlogBytes: () => BACKLOG_BYTES,
          onBehindChange: () => steps.push(client.behindReason),
        },
        errors,
      );
      // Started before the thread fell far behind: its row is on the thread, so its end must follow.
      client.enqueue(startEvent('begun', { stream: true }));
      const folding = (): boolean => (client.behindReason ?? '').includes('spend summaries');
      for (let index = 0; !folding() && index < 20; index += 1) {
        const before = reports(errors).length;
        client.enqueue(startEvent(`filler-${index}`));
        client.enqueue(endEvent(`filler-${index}`));
        await expect.poll(() => reports(errors).length > before || folding()).toBe(true);
      }
      expect(client.behindReason).toMatch(/counted in spend summaries/);
      const foldedRequests = (): number => client.foldedSpend().reduce((sum, entry) => sum + entry.requests, 0);
      const foldedBefore = foldedRequests();

      client.enqueue(startEvent('folded-1'));
      client.enqueue(endEvent('folded-1', { costCredits: 1.5 }));
      client.enqueue(startEvent('still running'));
      client.enqueue(withBody('begun'));
      await expect.poll(foldedRequests).toBe(foldedBefore + 1);
      expect(client.behindReason).toMatch(new RegExp(`\\(${foldedBefore + 1} so far\\)`));
      await expect
        .poll(() => reports(errors).at(-1))
        .toBe(`batch withBodies=false bodiesCarried=false ids=begun notes=${JSON.stringify([bodiesNotKeptNote(BACKLOG_BYTES)])}`);

      client.enqueue(endEvent('still running', { costCredits: 2 }));
      await expect.poll(foldedRequests).toBe(foldedBefore + 2);
      // The fillers folded with them cost 0.25 each (endEvent's default).
      expect(client.foldedSpend()).toMatchObject([{ requests: foldedBefore + 2, costCredits: 3.5 + foldedBefore * 0.25, model: 'gpt-4o' }]);

      // Caught up: the folded spend goes to the thread, and nothing folded was posted as a row.
      await client.flush();
      await client.flush();
      const said = reports(errors);
      expect(said).toContain(`fold requests=${foldedBefore + 2} cost=${3.5 + foldedBefore * 0.25}`);
      expect(said.filter((line) => /ids=.*(folded-1|still running)/.test(line))).toEqual([]);
      await expect.poll(() => client.foldedSpend()).toEqual([]);
      expect(client.behindReason).toBeNull();
      // Told at each step, not at each request folded: what `airlock serve` prints.
      expect(steps).toEqual([
        expect.stringMatching(/request bodies are not kept until it catches up/),
        expect.stringMatching(/counted in spend summaries .* \(\d+ so far\)/),
        null,
      ]);
      await client.close();
    });
  });
});
