import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorClass } from '../../../proxy/contracts/errors.ts';
import { explainError } from '../../../proxy/core/errorClass.ts';
import { STREAM_ENDED_EARLY_CODE } from '../../../proxy/core/errorExplanations.ts';
import type { Fault } from '../../simulator/types.ts';
import {
  IDLE_TIMEOUT_MS,
  rawRequestOf,
  runFault,
  startMatrix,
  STREAMED_TEXT,
  upstreamPrefix,
  upstreamAnswer,
  upstreamStream,
  VARIANTS,
  variantName,
  type MatrixHarnesses,
  type Variant,
} from '../../support/faultMatrix.ts';
import { JSON_HEADERS, rawRequest, sseData } from '../../support/http.ts';
import { findSentinel } from '../../support/sentinel.ts';

/**
 * A gateway answer that breaks after its 200, for each protocol Airlock serves, streamed and
 * whole, native and translated: the client's SDK must get an error in its protocol (never a cut
 * connection when Airlock had sent nothing yet, never a fake end), with the cause and the fix; the
 * row names the class and what happened; what reached the client is billed as an estimate.
 */
let matrix: MatrixHarnesses;
beforeAll(async () => {
  matrix = await startMatrix();
});
afterAll(async () => {
  await matrix.close();
});

interface BreakCase {
  name: string;
  fault: (variant: Variant) => Fault;
  errorClass: ErrorClass;
  /** What the row's message says happened. */
  cause: RegExp;
  streamOnly?: boolean;
  /** The gateway answers a whole JSON answer, whether the client asked for a stream or not. */
  wholeAnswer?: boolean;
  /** The client had the text before the break. */
  textFirst: boolean;
  /** Airlock's code for a failure its class explains wrongly (errorExplanations.ts). */
  clientCode?: string;
}

const text = (variant: Variant) => upstreamPrefix(variant);
const BREAKS: BreakCase[] = [
  {
    name: 'a stream that ends cleanly without [DONE] or its finish',
    streamOnly: true,
    fault: (variant) => {
      const { events, textEvents } = upstreamStream(variant);
      return { kind: 'text', status: 200, contentType: 'text/event-stream', text: events.slice(0, textEvents).join('') };
    },
    errorClass: 'stream_interrupted',
    cause: /ended the stream cleanly before its answer was whole, without/,
    textFirst: true,
    clientCode: STREAM_ENDED_EARLY_CODE,
  },
  {
    name: 'a connection reset right after the headers',
    fault: (variant) => ({
      kind: 'text',
      status: 200,
      contentType: text(variant).contentType,
      text: text(variant).text,
      resetAfterBytes: 0,
    }),
    errorClass: 'stream_interrupted',
    cause: /ECONNRESET/,
    textFirst: false,
  },
  {
    name: 'a connection reset in the middle of a JSON line',
    fault: (variant) => ({
      kind: 'text',
      status: 200,
      contentType: text(variant).contentType,
      text: text(variant).text,
      resetAfterBytes: text(variant).midLine,
    }),
    errorClass: 'stream_interrupted',
    cause: /ECONNRESET/,
    textFirst: true,
  },
  {
    // A relay that copies its provider's answer and ends its own chunked body in order when that
    // copy breaks: the client gets a 200 whose JSON stops mid-way, and its SDK retries no 200
    // (wso2/api-manager#5231: "HTTP 200 with a truncated/malformed JSON body" from an AI gateway;
    // chatboxai/chatbox#153: "Unterminated string in JSON" through a reverse proxy).
    name: 'a whole JSON answer ended in order halfway, its JSON cut short',
    wholeAnswer: true,
    fault: (variant) => {
      const whole = upstreamAnswer(variant);
      return { kind: 'text', status: 200, contentType: 'application/json', text: whole.slice(0, Math.floor(whole.length / 2)) };
    },
    errorClass: 'stream_interrupted',
    cause: /^the gateway ended its answer after \d+ bytes, its JSON cut short/,
    textFirst: false,
    clientCode: STREAM_ENDED_EARLY_CODE,
  },
  {
    name: 'a gateway that stalls mid-answer past the idle timeout',
    fault: (variant) => ({
      kind: 'text',
      status: 200,
      contentType: text(variant).contentType,
      text: text(variant).text,
      stallAfterBytes: text(variant).breakAt,
    }),
    errorClass: 'timeout_idle',
    cause: new RegExp(`idleTimeoutMs = ${IDLE_TIMEOUT_MS} ms|timeout`, 'i'),
    textFirst: true,
  },
];

describe.each(BREAKS)('$name', (breakCase) => {
  const variants = VARIANTS.filter((variant) => variant.stream || breakCase.streamOnly !== true);
  it.each(variants.map((variant) => [variantName(variant), variant] as const))('%s', async (_name, variant) => {
    const { outcome, end, harness } = await runFault(matrix, variant, breakCase.fault(variant));
    // The SDK read an error of its own protocol, not a dropped connection.
    expect(outcome.otherError).toBeNull();
    expect(outcome.apiError).not.toBeNull();
    const { fix } = explainError(breakCase.errorClass, breakCase.clientCode);
    expect(outcome.apiError?.message).toContain(fix);
    // No timeout of Airlock's ended a stream the gateway closed itself: its fix must not send the user to one.
    if (breakCase.clientCode === STREAM_ENDED_EARLY_CODE) expect(outcome.apiError?.message).not.toContain('idleTimeoutMs');
    if (breakCase.errorClass === 'timeout_idle') expect(outcome.apiError?.message).toContain(`idleTimeoutMs = ${IDLE_TIMEOUT_MS} ms`);
    // A stream's client keeps what it was sent; a whole answer that broke reached the client as nothing but the error.
    const streamedText = variant.stream && breakCase.textFirst;
    expect(outcome.text).toBe(streamedText ? STREAMED_TEXT : '');

    expect(end.errorClass).toBe(breakCase.errorClass);
    expect(end.errorMessage).toMatch(breakCase.cause);
    // The gateway answered 200 and ran the model: its input at least is billed, and the text the client got.
    expect(end.usageSource).toBe('estimated');
    expect(end.usage?.inputTokens).toBeGreaterThan(0);
    if (streamedText) expect(end.usage?.outputTokens).toBeGreaterThan(0);
    expect(end.costCredits).toBeGreaterThan(0);
    expect(harness.simulator.received).toHaveLength(1);
    expect(findSentinel(outcome.seen)).toBeNull();
    expect(findSentinel(JSON.stringify(end))).toBeNull();
  });
});

/**
 * Codex reads a Responses stream's failure only from `response.failed` (its message shown, its code
 * deciding whether it sends again) and skips an `error` event as unknown, so a native stream that
 * broke with only that frame read to Codex as "stream closed before response.completed", without
 * the cause or fix (codex-rs/codex-api/src/sse/responses.rs). The SDKs throw at the `error` frame first.
 */
describe('a native Responses stream that breaks', () => {
  it.each(BREAKS.filter((breakCase) => breakCase.errorClass === 'stream_interrupted' && breakCase.wholeAnswer !== true))(
    '$name: ends with response.failed after the error event, with the cause and fix',
    async (breakCase) => {
      const variant: Variant = { client: 'responses', mode: 'native', stream: true };
      const harness = matrix.native;
      harness.simulator.reset();
      harness.simulator.script(breakCase.fault(variant));
      const request = rawRequestOf(variant);
      const ended = harness.nextEnd();
      const response = await rawRequest(`${harness.proxy.url}${request.path}`, {
        method: 'POST',
        headers: JSON_HEADERS,
        body: request.body,
      });
      await ended;
      const events = response.body.split('\n\n').filter((event) => event.startsWith('event: '));
      expect(events.at(-2)).toMatch(/^event: error\n/);
      expect(events.at(-1)).toMatch(/^event: response\.failed\n/);
      const failed = JSON.parse(sseData(events.at(-1) ?? '')[0] ?? '{}') as {
        response: { status: string; error: { code: string; message: string } };
      };
      expect(failed.response.status).toBe('failed');
      // Not one of the codes Codex gives up on: a break is sent again, as Codex does for a dropped stream.
      expect(failed.response.error.code).toBe('server_error');
      expect(failed.response.error.message).toContain(explainError('stream_interrupted', breakCase.clientCode).fix);
    },
  );
});
