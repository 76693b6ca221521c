import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Fault } from '../../simulator/types.ts';
import { MODEL, startMatrix, type MatrixHarnesses } from '../../support/faultMatrix.ts';
import { findSentinel } from '../../support/sentinel.ts';
import { streamThroughAirlock, type TranslatedClient } from '../../support/translatedClients.ts';

/**
 * A gateway's chat stream that stops without `[DONE]` and without a finish_reason, under
 * translation to Claude Code's Messages and Codex's Responses: at each point an answer can be
 * (nothing yet, text, a tool call's arguments half sent) and each way a stream stops (closed in
 * order at an event's end, closed in order halfway through a `data:` line, reset halfway through
 * one). The client's SDK must read an error of its protocol (Anthropic: an `error` event, no
 * `message_stop`; Responses: `response.failed` or the `error` event the SDK throws at, never
 * `response.completed`), the row must say the stream broke, and the output billed is no more
 * than what came. brokenAnswers.test.ts covers the text case closed at an event's end and reset
 * mid-line, for every protocol; these are the others.
 */
let matrix: MatrixHarnesses;
beforeAll(async () => {
  matrix = await startMatrix();
});
afterAll(async () => {
  await matrix.close();
});

const chunk = (delta: object): string =>
  `data: ${JSON.stringify({ id: 'chatcmpl-break', object: 'chat.completion.chunk', created: 1, model: MODEL, choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;

const TEXT = 'The first part of the answer, streamed before the gateway failed.';

interface BreakPoint {
  name: string;
  /** The events sent whole before the stream stops. */
  events: string[];
  /** The event the stream stops inside, when it stops mid-line. */
  next: string;
  /** The output the client had by then. */
  text: string;
  toolInput: string;
}

const BREAK_POINTS: BreakPoint[] = [
  {
    name: 'before the first delta',
    events: [chunk({ role: 'assistant', content: '' })],
    next: chunk({ content: TEXT }),
    text: '',
    toolInput: '',
  },
  {
    name: 'after text',
    events: [chunk({ role: 'assistant', content: '' }), chunk({ content: TEXT })],
    next: chunk({ content: ' And more of it.' }),
    text: TEXT,
    toolInput: '',
  },
  {
    name: 'mid tool-call arguments',
    events: [
      chunk({
        role: 'assistant',
        tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '' } }],
      }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"path":' } }] }),
    ],
    next: chunk({ tool_calls: [{ index: 0, function: { arguments: '"a.ts"}' } }] }),
    text: '',
    toolInput: '{"path":',
  },
];

interface Stop {
  name: string;
  fault: (point: BreakPoint) => Fault;
  cause: RegExp;
}

const halfOf = (event: string): string => event.slice(0, Math.floor(event.length / 2));

const STOPS: Stop[] = [
  {
    name: 'closed in order at an event end',
    fault: (point) => ({ kind: 'text', status: 200, contentType: 'text/event-stream', chunked: true, text: point.events.join('') }),
    cause: /ended the stream cleanly before its answer was whole/,
  },
  {
    name: 'closed in order halfway through a data line',
    fault: (point) => ({
      kind: 'text',
      status: 200,
      contentType: 'text/event-stream',
      chunked: true,
      text: point.events.join('') + halfOf(point.next),
    }),
    cause: /ended the stream cleanly before its answer was whole/,
  },
  {
    name: 'reset halfway through a data line',
    fault: (point) => {
      const text = point.events.join('') + halfOf(point.next);
      return { kind: 'text', status: 200, contentType: 'text/event-stream', text: `${text}${point.next}`, resetAfterBytes: text.length };
    },
    cause: /ECONNRESET/,
  },
];

// brokenAnswers.test.ts has these two.
const COVERED = new Set(['after text/closed in order at an event end', 'after text/reset halfway through a data line']);

const CASES = BREAK_POINTS.flatMap((point) =>
  STOPS.filter((stop) => !COVERED.has(`${point.name}/${stop.name}`)).flatMap((stop) =>
    (['messages', 'responses'] as const).map((client) => [`${client}, ${point.name}, ${stop.name}`, client, point, stop] as const),
  ),
);

describe('a translated chat stream that stops without [DONE] or a finish', () => {
  it.each(CASES)('%s', async (_name, client: TranslatedClient, point, stop) => {
    const harness = matrix.translate;
    harness.simulator.reset();
    harness.simulator.script(stop.fault(point));
    const ended = harness.nextEnd();
    const outcome = await streamThroughAirlock(harness, client, MODEL);
    const end = await ended;

    // The SDK read an error of its protocol, never a whole answer nor a dropped connection.
    expect(outcome.otherError).toBeNull();
    if (client === 'messages') {
      expect(outcome.apiError).not.toBeNull();
      expect(outcome.apiError?.type).toMatch(/^(api_error|overloaded_error)$/);
      expect(outcome.eventTypes).not.toContain('message_stop');
    } else {
      expect(outcome.apiError !== null || outcome.failed !== null).toBe(true);
      expect(outcome.eventTypes).not.toContain('response.completed');
      expect(outcome.eventTypes).not.toContain('response.incomplete');
    }
    expect(outcome.text).toBe(point.text);
    expect(outcome.toolInput).toBe(point.toolInput);

    // The row says the stream broke.
    expect(end.errorClass).toBe('stream_interrupted');
    expect(end.errorMessage).toMatch(stop.cause);
    // Billed no more than came: the input the model read (an estimate, no usage came) and the output sent.
    expect(end.usageSource).toBe('estimated');
    const sentChars = point.text.length + point.toolInput.length;
    if (sentChars === 0) expect(end.usage?.outputTokens).toBe(0);
    else expect(end.usage?.outputTokens).toBeLessThanOrEqual(sentChars);
    expect(harness.simulator.received).toHaveLength(1);
    expect(findSentinel(outcome.seen)).toBeNull();
  });
});
