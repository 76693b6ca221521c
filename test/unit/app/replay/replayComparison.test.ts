import { describe, expect, it } from 'vitest';
import {
  answerDiff,
  answerTextOfJson,
  replayDifference,
  replaySideOf,
  replaySideOfEvents,
} from '../../../../proxy/app/replay/replayComparison.ts';
import type { ReplaySide } from '../../../../proxy/contracts/replay.ts';
import { logDetail } from '../export/exportRows.ts';
import { capturedBodies, endEvent, startEvent } from '../../../support/lifecycleEvents.ts';
import { findSentinel, SENTINEL_KEY } from '../../../support/sentinel.ts';

describe('answerTextOfJson', () => {
  it.each([
    ['chat', '{"choices":[{"message":{"role":"assistant","content":"red"}}]}', 'red'],
    ['chat with content parts', '{"choices":[{"message":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}}]}', 'ab'],
    ['Anthropic Messages', '{"type":"message","content":[{"type":"thinking","thinking":"hm"},{"type":"text","text":"blue"}]}', 'blue'],
    ['Responses', '{"output":[{"type":"reasoning"},{"type":"message","content":[{"type":"output_text","text":"green"}]}]}', 'green'],
    ['a tool call only', '{"choices":[{"message":{"content":null,"tool_calls":[]}}]}', null],
    ['an error body', '{"error":{"message":"nope"}}', null],
    ['not JSON', 'Bad gateway', null],
  ])('%s', (_name, body, expected) => {
    expect(answerTextOfJson(body, [SENTINEL_KEY])).toBe(expected);
  });
});

const side = (overrides: Partial<ReplaySide>): ReplaySide => ({
  id: 'a',
  status: 200,
  errorClass: null,
  errorMessage: null,
  model: 'm',
  inputTokens: 10,
  outputTokens: 5,
  usageEstimated: false,
  costCredits: 0.5,
  durationMs: 100,
  answerText: 'the sky is blue',
  ...overrides,
});

describe('replayDifference', () => {
  it.each([
    [
      'the same answer',
      side({}),
      side({}),
      { statusChanged: false, inputTokens: 0, outputTokens: 0, costCredits: 0, durationMs: 0, answerChanged: false },
    ],
    [
      'a longer, dearer, slower answer',
      side({}),
      side({ inputTokens: 12, outputTokens: 9, costCredits: 0.75, durationMs: 160, answerText: 'the sky is very blue' }),
      { statusChanged: false, inputTokens: 2, outputTokens: 4, costCredits: 0.25, durationMs: 60, answerChanged: true },
    ],
    [
      'a refusal against an answer',
      side({}),
      side({ status: 402, errorClass: 'budget_exceeded', inputTokens: null, outputTokens: null, costCredits: null, answerText: null }),
      {
        statusChanged: true,
        inputTokens: null,
        outputTokens: null,
        costCredits: null,
        durationMs: 0,
        answerChanged: true,
        answerDiff: null,
      },
    ],
  ])('%s', (_name, original, replay, expected) => {
    expect(replayDifference(original, replay)).toMatchObject(expected);
  });

  it('marks the words only in each answer', () => {
    expect(answerDiff('the sky is blue', 'the sky is very blue')).toEqual([
      { kind: 'same', text: 'the sky is ' },
      { kind: 'added', text: 'very ' },
      { kind: 'same', text: 'blue' },
    ]);
    expect(answerDiff('x '.repeat(30_000), 'y')).toBeNull();
  });
});

describe('a key the log found in no part whole', () => {
  it('is masked once the parts are joined (a key split across two content parts)', () => {
    const cut = 14;
    const parts = [
      { type: 'text', text: `Your key: ${SENTINEL_KEY.slice(0, cut)}` },
      { type: 'text', text: SENTINEL_KEY.slice(cut) },
    ];
    const body = JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content: parts } }] });
    const text = answerTextOfJson(body, [SENTINEL_KEY]);
    expect(text).toMatch(/^Your key: /);
    expect(findSentinel(text ?? '')).toBeNull();
    expect(findSentinel(replaySideOf(logDetail({}, { responseBody: body }), [SENTINEL_KEY]).answerText ?? '')).toBeNull();
  });
});

describe('replaySideOf', () => {
  it('reads a stream from its text and a JSON answer from its body', () => {
    expect(replaySideOf(logDetail({}, {}), [SENTINEL_KEY]).answerText).toBe('hello');
    expect(replaySideOf(logDetail({ stream: true }, { responseBody: null, streamText: 'streamed' }), [SENTINEL_KEY]).answerText).toBe(
      'streamed',
    );
    expect(replaySideOf(logDetail({}, null), [SENTINEL_KEY])).toMatchObject({
      answerText: null,
      model: 'gpt-4o-mini-2024-07-18',
      costCredits: expect.any(Number),
    });
  });
});

describe('replaySideOfEvents (a replay whose row a full disk kept from the log)', () => {
  it('holds the figures the row would, and masks a key the gateway echoed in the answer, the model or the error', () => {
    const answered = endEvent('r2', {
      responseModel: `m-${SENTINEL_KEY}`,
      usageSource: 'estimated',
      bodies: capturedBodies({ responseBody: Buffer.from(`{"choices":[{"message":{"content":"key ${SENTINEL_KEY}"}}]}`) }),
    });
    const side = replaySideOfEvents(startEvent('r2'), answered, [SENTINEL_KEY]);
    expect(side).toMatchObject({ id: 'r2', status: 200, inputTokens: 10, outputTokens: 5, usageEstimated: true, costCredits: 0.25 });
    expect(side.answerText).toBe('key [redacted]');
    expect(findSentinel(JSON.stringify(side))).toBeNull();

    const failed = endEvent('r3', {
      status: 502,
      errorClass: 'upstream_error',
      errorMessage: `bad key ${SENTINEL_KEY}`,
      responseModel: null,
    });
    const streamed = { ...failed, bodies: capturedBodies({ responseBody: null, streamText: 'partial' }) };
    const failedSide = replaySideOfEvents(startEvent('r3', { upstreamModel: 'qwen-plus' }), streamed, [SENTINEL_KEY]);
    expect(failedSide).toMatchObject({ status: 502, errorClass: 'upstream_error', model: 'qwen-plus', answerText: 'partial' });
    expect(findSentinel(JSON.stringify(failedSide))).toBeNull();
  });
});
