import { DatabaseSync } from 'node:sqlite';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { INGEST_SLICE_LIMITS } from '../../../proxy/store/write/eventIngest.ts';
import { DATABASE_FILE_NAME, SCHEMA_VERSION } from '../../../proxy/store/schema.ts';
import { endEvent, startEvent, TEST_STARTED_AT_MS } from '../../support/lifecycleEvents.ts';
import { openTempLog, type TempLog } from './tempLog.ts';

let temp: TempLog;
afterEach(async () => {
  await temp.cleanup();
});

describe('request log row lifecycle', () => {
  it('queues events and writes nothing until the flush', async () => {
    temp = openTempLog();
    temp.events.emit(startEvent('r1'));
    expect(temp.log.getRequest('r1')).toBeNull();
    await temp.log.flush();
    expect(temp.log.getRequest('r1')?.row.state).toBe('in_flight');
  });

  it('writes a request that just started in flight at the flush, though younger than the in-flight row delay', async () => {
    temp = openTempLog();
    temp.events.emit(startEvent('fresh', { startedAtMs: Date.now() }));
    await temp.log.flush();
    expect(temp.log.getRequest('fresh')?.row.state).toBe('in_flight');
  });

  it('drains the queue on its own timer, slice after slice', async () => {
    temp = openTempLog({ flushIntervalMs: 1 });
    const requestCount = 1_500;
    for (let index = 0; index < requestCount; index += 1) {
      temp.events.emit(startEvent(`t${index}`, { startedAtMs: TEST_STARTED_AT_MS + index }));
      temp.events.emit(endEvent(`t${index}`));
    }
    // More events than one slice takes, and no flush: the timer's post and the thread's slices write them all.
    await expect
      .poll(() => temp.log.totals({ fromMs: TEST_STARTED_AT_MS, toMs: TEST_STARTED_AT_MS + requestCount }).requests)
      .toBe(requestCount);
    expect(temp.log.listRequests({ status: 'ok', limit: 1 }).rows[0]?.state).toBe('done');
  });

  it('writes requests whose events span several slices whole, and one still open in flight', async () => {
    temp = openTempLog();
    // Three events per request, more than one slice holds (INGEST_SLICE_LIMITS): a request's events fall in different slices.
    const ids = Array.from({ length: Math.ceil(INGEST_SLICE_LIMITS.maxEvents / 2) }, (_, index) => `s${index}`);
    for (const id of ids) temp.events.emit(startEvent(id, { clientName: 'agent', requestedModel: 'gpt-4o', notes: [`note ${id}`] }));
    temp.events.emit(startEvent('open'));
    for (const id of ids) temp.events.emit({ type: 'headers', requestId: id, status: 200, ttfbMs: 5, upstreamRequestId: null, retries: 0 });
    for (const id of ids) temp.events.emit(endEvent(id, { costCredits: 0.5 }));
    await temp.log.flush();
    for (const id of ids) {
      expect(temp.log.getRequest(id)?.row).toMatchObject({
        state: 'done',
        status: 200,
        clientName: 'agent',
        notes: [`note ${id}`],
        costCredits: 0.5,
      });
    }
    expect(temp.log.getRequest('open')?.row.state).toBe('in_flight');
  });

  it('inserts the row in flight at start and completes it at end', async () => {
    temp = openTempLog();
    temp.events.emit(startEvent('r1', { stream: true, notes: ['dropped tool_choice'] }));
    await temp.log.flush();
    expect(temp.log.getRequest('r1')).toEqual({ row: expect.objectContaining({ state: 'in_flight', status: null }), bodies: null });

    temp.events.emit({ type: 'headers', requestId: 'r1', status: 200, ttfbMs: 30, upstreamRequestId: 'up-1', retries: 1 });
    temp.events.emit({ type: 'delta', requestId: 'r1', text: 'Hel' });
    await temp.log.flush();
    expect(temp.log.getRequest('r1')?.row).toMatchObject({ status: 200, ttfbMs: 30, retries: 1, state: 'in_flight' });

    temp.events.emit({ type: 'usage', requestId: 'r1', usage: { inputTokens: 12, outputTokens: 4 }, responseModel: 'gpt-4o-rewritten' });
    temp.events.emit(
      endEvent('r1', {
        usage: null,
        usageSource: null,
        costCredits: 6,
        responseModel: null,
        retries: 1,
        ttfbMs: 30,
        bodies: {
          requestHeaders: { 'content-type': 'application/json' },
          responseHeaders: { 'content-type': 'text/event-stream', 'x-ratelimit-remaining': '9' },
          requestBody: Buffer.from('{"stream":true}'),
          requestBodyTruncated: false,
          responseBody: Buffer.from('data: {"choices":[{"delta":{"content":"Hello"}}]}\n\ndata: [DONE]\n\n'),
          responseBodyTruncated: false,
          streamText: 'Hello',
        },
      }),
    );
    await temp.log.flush();
    const detail = temp.log.getRequest('r1');
    expect(detail?.row).toMatchObject({
      state: 'done',
      status: 200,
      durationMs: 120,
      inputTokens: 12,
      outputTokens: 4,
      usageSource: 'reported',
      responseModel: 'gpt-4o-rewritten',
      modelMismatch: true,
      costCredits: 6,
      upstreamRequestId: 'up-r1',
      notes: ['dropped tool_choice'],
    });
    expect(detail?.bodies).toMatchObject({
      requestBody: '{"stream":true}',
      responseBody: null,
      streamText: 'Hello',
      rawEvents: expect.stringContaining('data: [DONE]'),
      responseHeaders: { 'content-type': 'text/event-stream', 'x-ratelimit-remaining': '9' },
    });
  });

  it('writes a request that starts and ends within one batch', async () => {
    temp = openTempLog();
    temp.events.emit(startEvent('r1'));
    temp.events.emit(endEvent('r1', { status: 429, errorClass: 'rate_limited', errorMessage: 'slow down' }));
    await temp.log.flush();
    expect(temp.log.getRequest('r1')?.row).toMatchObject({ state: 'done', status: 429, errorClass: 'rate_limited' });
  });

  it.each([
    ['reported and priced', { inputTokens: 3, outputTokens: 2 }, 'reported', 1.5],
    ['estimated by a tokenizer', { inputTokens: 40, outputTokens: 9 }, 'estimated', 0.7],
    ['unpriced model', { inputTokens: 3, outputTokens: 2 }, 'reported', null],
  ] as const)('records usage %s with its source and cost', async (_name, usage, usageSource, costCredits) => {
    temp = openTempLog();
    temp.events.emit(startEvent('r1'));
    temp.events.emit(endEvent('r1', { usage, usageSource, costCredits }));
    await temp.log.flush();
    expect(temp.log.getRequest('r1')?.row).toMatchObject({
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      usageSource,
      costCredits,
    });
  });

  it('marks rows a previous process left in flight as interrupted when it opens', async () => {
    temp = openTempLog();
    temp.events.emit(startEvent('alive'));
    // Younger than the in-flight row delay: only the close writes its row.
    temp.events.emit(startEvent('just-started', { startedAtMs: Date.now() }));
    temp.events.emit(startEvent('finished'));
    temp.events.emit(endEvent('finished'));
    await temp.log.close();

    const reopened = temp.reopen();
    expect(reopened.getRequest('alive')?.row.state).toBe('interrupted');
    expect(reopened.getRequest('just-started')?.row.state).toBe('interrupted');
    expect(reopened.getRequest('finished')?.row.state).toBe('done');
    expect(reopened.markInterruptedFromPreviousRun()).toBe(0);
  });

  it('creates the schema in WAL mode with the current version', async () => {
    temp = openTempLog();
    const db = new DatabaseSync(join(temp.dataDir, DATABASE_FILE_NAME), { readOnly: true });
    try {
      expect(db.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
      expect(db.prepare('PRAGMA user_version').get()).toEqual({ user_version: SCHEMA_VERSION });
    } finally {
      db.close();
    }
  });
});
