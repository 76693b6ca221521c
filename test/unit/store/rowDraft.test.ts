import { describe, expect, it } from 'vitest';
import { COLUMNS_SET_AFTER_START, REQUEST_COLUMNS, rowToParams } from '../../../proxy/store/write/rowCodec.ts';
import {
  applyRowEvent,
  isSupersededByEnd,
  maskRowText,
  maskRows,
  modelsDiffer,
  rowFromStart,
  type RowUpdateEvent,
} from '../../../proxy/store/write/rowDraft.ts';
import type { RequestLogRow } from '../../../proxy/contracts/log.ts';
import { redactKnownSecrets, redactSecrets } from '../../../proxy/core/redact.ts';
import { endEvent, startEvent } from '../../support/lifecycleEvents.ts';
import { findSentinel, SENTINEL_KEY } from '../../support/sentinel.ts';

describe('modelsDiffer', () => {
  it.each([
    ['gpt-4o', 'gpt-4o', false],
    ['gpt-4o', 'GPT-4o', false],
    ['gpt-4o', 'gpt-4o-2024-08-06', true],
    ['claude-sonnet-4', 'gpt-4o-mini', true],
    [null, 'gpt-4o', false],
    ['gpt-4o', null, false],
  ])('%s vs %s: %s', (upstream, response, differs) => {
    expect(modelsDiffer(upstream, response)).toBe(differs);
  });
});

describe('row lifecycle', () => {
  it('starts in flight with no outcome yet', () => {
    const row = rowFromStart(startEvent('r1', { stream: true }));
    expect(row).toMatchObject({ id: 'r1', state: 'in_flight', status: null, durationMs: null, stream: true, costCredits: null });
  });

  it('takes status, time to first byte and the upstream id from headers', () => {
    const row = applyRowEvent(rowFromStart(startEvent('r1')), {
      type: 'headers',
      requestId: 'r1',
      status: 200,
      ttfbMs: 33,
      upstreamRequestId: 'up-1',
      retries: 2,
    });
    expect(row).toMatchObject({ status: 200, ttfbMs: 33, upstreamRequestId: 'up-1', retries: 2, state: 'in_flight' });
  });

  it('records reported usage and flags a rewritten response model', () => {
    const row = applyRowEvent(rowFromStart(startEvent('r1')), {
      type: 'usage',
      requestId: 'r1',
      usage: { inputTokens: 7, outputTokens: 3, cachedInputTokens: 2, reasoningTokens: 1 },
      responseModel: 'gpt-4o-mini',
    });
    expect(row).toMatchObject({
      inputTokens: 7,
      outputTokens: 3,
      cachedInputTokens: 2,
      reasoningTokens: 1,
      usageSource: 'reported',
      responseModel: 'gpt-4o-mini',
      modelMismatch: true,
    });
  });

  it('records the estimate of a stream so far, which a crash leaves in the row, but never over reported usage', () => {
    const progress: RowUpdateEvent = {
      type: 'progress',
      requestId: 'r1',
      usage: { inputTokens: 40, outputTokens: 12 },
      costCredits: 0.0052,
    };
    const estimated = applyRowEvent(rowFromStart(startEvent('r1', { stream: true })), progress);
    expect(estimated).toMatchObject({
      inputTokens: 40,
      outputTokens: 12,
      usageSource: 'estimated',
      costCredits: 0.0052,
      state: 'in_flight',
    });
    const reported = applyRowEvent(rowFromStart(startEvent('r1', { stream: true })), {
      type: 'usage',
      requestId: 'r1',
      usage: { inputTokens: 7, outputTokens: 3 },
      responseModel: null,
    });
    expect(applyRowEvent(reported, progress)).toEqual(reported);
  });

  it('completes the row at end, keeping the headers ttfb when end has none', () => {
    const afterHeaders = applyRowEvent(rowFromStart(startEvent('r1')), {
      type: 'headers',
      requestId: 'r1',
      status: 502,
      ttfbMs: 50,
      upstreamRequestId: null,
      retries: 1,
    });
    const row = applyRowEvent(
      afterHeaders,
      endEvent('r1', {
        status: 502,
        ttfbMs: null,
        errorClass: 'upstream_error',
        errorMessage: 'bad gateway',
        usage: null,
        responseModel: null,
      }),
    );
    expect(row).toMatchObject({
      state: 'done',
      status: 502,
      ttfbMs: 50,
      durationMs: 120,
      errorClass: 'upstream_error',
      errorMessage: 'bad gateway',
      inputTokens: null,
      usageSource: null,
      upstreamRequestId: 'up-r1',
    });
  });
});

describe('the row at end', () => {
  const fallback = {
    profileId: 'backup',
    upstreamModel: 'claude-sonnet-4',
    chain: [{ profileId: 'main', model: 'gpt-4o', status: 503, errorClass: 'upstream_error' as const }],
  };
  const started = { ...rowFromStart(startEvent('r1', { notes: ['dropped n'] })), responseModel: 'gpt-4o', ttfbMs: 30 };
  // Every field end sets, with and without the parts it may lack: the whole row, so a field lost or added shows.
  it.each<[string, Partial<Parameters<typeof endEvent>[1]>, Partial<RequestLogRow>]>([
    [
      'a plain end',
      {},
      { responseModel: 'gpt-4o', modelMismatch: false, inputTokens: 10, outputTokens: 5, usageSource: 'reported', ttfbMs: 40 },
    ],
    [
      'a fallback with keys, notes, estimated usage and a rewritten model',
      {
        fallback,
        gatewayKeys: [{ keyId: 'k2', label: 'second' }],
        logNotes: ['Bodies not kept'],
        usage: { inputTokens: 7, outputTokens: 3, cachedInputTokens: 2, reasoningTokens: 1 },
        usageSource: 'estimated',
        responseModel: 'claude-sonnet-4-5',
        ttfbMs: null,
        upstreamRequestId: null,
      },
      {
        profileId: 'backup',
        upstreamModel: 'claude-sonnet-4',
        fallbackChain: fallback.chain,
        gatewayKeys: [{ keyId: 'k2', label: 'second' }],
        notes: ['dropped n', 'Bodies not kept'],
        inputTokens: 7,
        outputTokens: 3,
        cachedInputTokens: 2,
        reasoningTokens: 1,
        usageSource: 'estimated',
        responseModel: 'claude-sonnet-4-5',
        modelMismatch: true,
        ttfbMs: 30,
        upstreamRequestId: null,
      },
    ],
    [
      'no usage and no response model: the earlier ones stay',
      { usage: null, usageSource: null, responseModel: null },
      { responseModel: 'gpt-4o', modelMismatch: false, inputTokens: null, usageSource: null, ttfbMs: 40 },
    ],
  ])('%s', (_label, end, changed) => {
    const row = applyRowEvent(started, endEvent('r1', end));
    expect(row).toEqual({
      ...started,
      status: 200,
      durationMs: 120,
      retries: 0,
      errorClass: null,
      errorMessage: null,
      upstreamRequestId: 'up-r1',
      costCredits: 0.25,
      state: 'done',
      cachedInputTokens: null,
      reasoningTokens: null,
      ...changed,
    });
    expect(started.state).toBe('in_flight');
  });
});

describe('columns a later event changes', () => {
  const headers: RowUpdateEvent = { type: 'headers', requestId: 'r1', status: 201, ttfbMs: 33, upstreamRequestId: 'up-1', retries: 2 };
  const usage: RowUpdateEvent = {
    type: 'usage',
    requestId: 'r1',
    usage: { inputTokens: 7, outputTokens: 3, cachedInputTokens: 2, reasoningTokens: 1 },
    responseModel: 'gpt-4o-mini',
  };
  const progress: RowUpdateEvent = { type: 'progress', requestId: 'r1', usage: { inputTokens: 40, outputTokens: 12 }, costCredits: 0.0052 };
  const failedEnd: RowUpdateEvent = endEvent('r1', {
    status: 502,
    errorClass: 'upstream_error',
    errorMessage: 'bad gateway',
    responseModel: 'other-model',
    usage: { inputTokens: 1, outputTokens: 2, cachedInputTokens: 3, reasoningTokens: 4 },
    usageSource: 'estimated',
  });

  /** An update writes only COLUMNS_SET_AFTER_START, so any other column an event changed would be lost. */
  it.each([
    ['headers', [headers]],
    ['usage', [usage]],
    ['progress', [progress]],
    ['end', [endEvent('r1')]],
    ['a failed end', [failedEnd]],
    ['headers, usage and end', [headers, usage, failedEnd]],
  ])('%s only changes columns an update sets', (_label, events) => {
    const started = rowFromStart(startEvent('r1'));
    const updated = events.reduce(applyRowEvent, started);
    const before = rowToParams(started);
    const changed = rowToParams(updated).flatMap((value, index) => (value === before[index] ? [] : [REQUEST_COLUMNS[index]]));
    expect(changed.length).toBeGreaterThan(0);
    expect(COLUMNS_SET_AFTER_START).toEqual(expect.arrayContaining(changed));
  });
});

describe('maskRowText', () => {
  it('masks the free-text fields and leaves ids and figures alone', () => {
    const row = { ...rowFromStart(startEvent('r1', { clientPath: '/v1/models?key=SECRET' })), errorMessage: 'bad key SECRET' };
    const masked = maskRowText({ ...row, notes: ['echoed SECRET'] }, (text) => text.replaceAll('SECRET', '[redacted]'));
    expect(masked.notes).toEqual(['echoed [redacted]']);
    expect(masked.clientPath).toBe('/v1/models?key=[redacted]');
    expect(masked.errorMessage).toBe('bad key [redacted]');
    expect(masked.id).toBe('r1');
    expect(masked.startedAtMs).toBe(row.startedAtMs);
  });

  it("masks the gateway's request id by its own rule: a gateway may echo what it was sent", () => {
    const row = { ...rowFromStart(startEvent('r1')), upstreamRequestId: 'req_SECRET' };
    const masked = maskRowText(
      row,
      (text) => text.replaceAll('SECRET', 'X'),
      (text) => text.replaceAll('SECRET', '[redacted]'),
    );
    expect(masked.upstreamRequestId).toBe('req_[redacted]');
    expect(maskRowText({ ...row, upstreamRequestId: null }, (text) => text).upstreamRequestId).toBeNull();
  });
});

describe('isSupersededByEnd', () => {
  type Between = Extract<RowUpdateEvent, { type: 'headers' | 'usage' | 'progress' }>;
  const headers = (upstreamRequestId: string | null): Between => ({
    type: 'headers',
    requestId: 'r1',
    status: 200,
    ttfbMs: 30,
    upstreamRequestId,
    retries: 1,
  });
  const usage = (responseModel: string | null): Between => ({
    type: 'usage',
    requestId: 'r1',
    usage: { inputTokens: 7, outputTokens: 3 },
    responseModel,
  });
  const progress: Between = { type: 'progress', requestId: 'r1', usage: { inputTokens: 40, outputTokens: 12 }, costCredits: 0.0052 };

  it.each<[string, Between, Partial<Parameters<typeof endEvent>[1]>, boolean]>([
    ['headers, when the end has time to first byte and upstream id', headers('up-h'), {}, true],
    ['headers, when neither has an upstream id', headers(null), { upstreamRequestId: null }, true],
    ['not headers whose upstream id the end lacks', headers('up-h'), { upstreamRequestId: null }, false],
    ['not headers whose time to first byte the end lacks', headers('up-h'), { ttfbMs: null }, false],
    ['usage, when the end has usage and a model', usage('gpt-4o-x'), {}, true],
    ['usage, when neither names a model', usage(null), { responseModel: null }, true],
    ['not usage when the end has none', usage('gpt-4o-x'), { usage: null }, false],
    ['not usage whose model the end lacks', usage('gpt-4o-x'), { responseModel: null }, false],
    ['progress, when the end has usage', progress, {}, true],
    ['progress, when the end has no usage: the end drops the estimate', progress, { usage: null }, true],
  ])('%s', (_name, between, endOverrides, superseded) => {
    const start = rowFromStart(startEvent('r1'));
    const end = endEvent('r1', endOverrides);
    expect(isSupersededByEnd(between, end)).toBe(superseded);
    // The claim itself: skipping the event leaves the row as it would be exactly when it is superseded.
    const same = JSON.stringify(applyRowEvent(applyRowEvent(start, between), end)) === JSON.stringify(applyRowEvent(start, end));
    expect(same).toBe(superseded);
  });
});

describe('maskRows', () => {
  const clean: RequestLogRow = {
    ...rowFromStart(startEvent('r1', { clientPath: '/v1/chat/completions' })),
    upstreamRequestId: 'chatcmpl-Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0Lm',
    summary: 'Say hello.',
    agentSessionId: 'conv-0123456789abcdef01234567',
  };
  const hop = { profileId: 'p1', model: 'gpt-4o', status: 500, errorClass: null };
  // Each free-text field holding the key: the row must come back masked, whichever field it is.
  it.each<[string, Partial<RequestLogRow>]>([
    ['clientPath', { clientPath: `/v1/models?key=${SENTINEL_KEY}` }],
    ['upstreamPath', { upstreamPath: `/v1/${SENTINEL_KEY}` }],
    ['notes', { notes: ['fine', `echoed ${SENTINEL_KEY}`] }],
    ['errorMessage', { errorMessage: `bad key ${SENTINEL_KEY}` }],
    ['requestedModel', { requestedModel: SENTINEL_KEY }],
    ['upstreamModel', { upstreamModel: SENTINEL_KEY }],
    ['responseModel', { responseModel: SENTINEL_KEY }],
    ['agentSessionId', { agentSessionId: SENTINEL_KEY }],
    ['summary', { summary: `my key is ${SENTINEL_KEY}` }],
    ['upstreamRequestId', { upstreamRequestId: `req-${SENTINEL_KEY}` }],
    ['a fallback hop model', { fallbackChain: [{ ...hop, model: SENTINEL_KEY }] }],
    ['a fallback hop note', { fallbackChain: [{ ...hop, note: `key ${SENTINEL_KEY}` }] }],
    ['a gateway key label', { gatewayKeys: [{ keyId: 'k1', label: SENTINEL_KEY }] }],
  ])('masks the key in %s', (_field, fields) => {
    const [masked] = maskRows([{ ...clean, ...fields }], [SENTINEL_KEY]);
    expect(findSentinel(JSON.stringify(masked))).toBeNull();
    expect(JSON.stringify(masked)).toContain('[redacted]');
  });

  it('masks a key by its shape too, not only the known ones', () => {
    const [masked] = maskRows([{ ...clean, errorMessage: 'got sk-abcdefghijklmnopqrstu back' }], []);
    expect(masked?.errorMessage).toBe('got [redacted] back');
  });

  it("returns a row without secrets as it is, the gateway's long random id kept whole", () => {
    const [masked] = maskRows([clean], [SENTINEL_KEY]);
    expect(masked).toBe(clean);
    expect(masked?.upstreamRequestId).toBe('chatcmpl-Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0Lm');
  });

  it('gives what maskRowText gives, for a row that needs masking', () => {
    const row = { ...clean, notes: [`echoed ${SENTINEL_KEY}`], summary: `key ${SENTINEL_KEY}` };
    const expected = maskRowText(
      row,
      (text) => redactSecrets(text, [SENTINEL_KEY]),
      (text) => redactKnownSecrets(text, [SENTINEL_KEY]),
    );
    expect(maskRows([row], [SENTINEL_KEY])).toEqual([expected]);
  });
});
