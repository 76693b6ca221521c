import { describe, expect, it } from 'vitest';
import { LIVE_TEXT_LIMIT_CHARS, type LiveRequestUpdate } from '../../../../proxy/contracts/liveEvents.ts';
import { mergeUpdate, updateFromEvent } from '../../../../proxy/app/control/liveUpdates.ts';
import type { RequestLifecycleEvent } from '../../../../proxy/contracts/lifecycle.ts';

const startEvent: RequestLifecycleEvent = {
  type: 'start',
  requestId: 'r1',
  startedAtMs: 5,
  method: 'POST',
  clientPath: '/v1/chat/completions',
  upstreamPath: '/chat/completions',
  profileId: 'main',
  clientName: 'aider',
  protocol: 'openai',
  protocolMode: 'native',
  requestedModel: 'm',
  upstreamModel: 'm',
  stream: true,
  notes: [],
};

describe('updateFromEvent', () => {
  it.each<[RequestLifecycleEvent, Partial<LiveRequestUpdate>]>([
    [startEvent, { fields: expect.objectContaining({ id: 'r1', startedAtMs: 5, state: 'in_flight', clientName: 'aider', stream: true }) }],
    [
      { type: 'headers', requestId: 'r1', status: 200, ttfbMs: 12, upstreamRequestId: 'u', retries: 1 },
      { fields: { status: 200, ttfbMs: 12 } },
    ],
    [
      { type: 'delta', requestId: 'r1', text: 'Hi' },
      { fields: {}, appendText: 'Hi' },
    ],
    [
      { type: 'usage', requestId: 'r1', usage: { inputTokens: 3, outputTokens: 4 }, responseModel: 'm2' },
      { fields: { inputTokens: 3, outputTokens: 4, responseModel: 'm2' } },
    ],
    [
      { type: 'progress', requestId: 'r1', usage: { inputTokens: 30, outputTokens: 9 }, costCredits: 0.00039 },
      { fields: { inputTokens: 30, outputTokens: 9, costCredits: 0.00039, usageEstimated: true } },
    ],
  ])('%j', (event, expected) => {
    expect(updateFromEvent(event)).toMatchObject({ requestId: 'r1', appendText: '', ...expected });
  });

  it('carries the outcome, never the bodies, of an end event', () => {
    const update = updateFromEvent({
      type: 'end',
      requestId: 'r1',
      status: 502,
      durationMs: 40,
      ttfbMs: null,
      retries: 2,
      errorClass: 'upstream_error',
      errorMessage: 'boom',
      errorCode: null,
      responseModel: null,
      upstreamRequestId: null,
      usage: null,
      usageSource: 'estimated',
      costCredits: null,
      bodies: {
        requestHeaders: { authorization: 'Bearer secret' },
        responseHeaders: {},
        requestBody: Buffer.from('secret body'),
        requestBodyTruncated: false,
        responseBody: null,
        responseBodyTruncated: false,
        streamText: null,
      },
    } as RequestLifecycleEvent);
    expect(update.fields).toEqual({
      state: 'done',
      status: 502,
      durationMs: 40,
      ttfbMs: null,
      errorClass: 'upstream_error',
      responseModel: null,
      costCredits: null,
      usageEstimated: true,
    });
    expect(JSON.stringify(update)).not.toContain('secret');
  });
});

describe('mergeUpdate', () => {
  it('keeps one entry per request: later fields win, text appends in order', () => {
    const pending = new Map<string, LiveRequestUpdate>();
    const updates: LiveRequestUpdate[] = [
      { requestId: 'a', fields: { state: 'in_flight', status: null }, appendText: '' },
      { requestId: 'b', fields: {}, appendText: 'B' },
      { requestId: 'a', fields: { status: 200 }, appendText: 'He' },
      { requestId: 'a', fields: {}, appendText: 'llo' },
      { requestId: 'a', fields: { state: 'done' }, appendText: '' },
    ];
    for (const update of updates) mergeUpdate(pending, update);
    expect([...pending.values()]).toEqual([
      { requestId: 'a', fields: { state: 'done', status: 200 }, appendText: 'Hello' },
      { requestId: 'b', fields: {}, appendText: 'B' },
    ]);
    expect(updates[0]!.fields).toEqual({ state: 'in_flight', status: null });
  });

  it('keeps the tail of a stream, however much arrives between two frames', () => {
    const pending = new Map<string, LiveRequestUpdate>();
    const pieces = Array.from({ length: 200 }, (_, index) => `<${index}>`.padEnd(1_000, '.'));
    for (const piece of pieces) mergeUpdate(pending, { requestId: 'a', fields: {}, appendText: piece });
    mergeUpdate(pending, { requestId: 'b', fields: {}, appendText: 'x'.repeat(10 * LIVE_TEXT_LIMIT_CHARS) });
    const whole = pieces.join('');
    const a = pending.get('a')!.appendText;
    expect(a.length).toBeLessThan(whole.length);
    expect(a.slice(-LIVE_TEXT_LIMIT_CHARS)).toBe(whole.slice(-LIVE_TEXT_LIMIT_CHARS));
    expect(pending.get('b')!.appendText.length).toBeLessThan(2 * LIVE_TEXT_LIMIT_CHARS);
  });
});
