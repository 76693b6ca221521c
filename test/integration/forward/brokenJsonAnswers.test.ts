import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { explanationOf } from '../../../proxy/app/control/mapping.ts';
import { sdkChatFailure } from '../../support/sdkChat.ts';
import { chatAnswerText } from '../../support/http.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { type RawAnswer, type RawGateway, startRawGateway } from '../../support/rawGateway.ts';
import { findSentinel } from '../../support/sentinel.ts';

/**
 * A chat answer not streamed whose 200 came but whose body then failed: it ended by a close or a
 * reset before its Content-Length, its gzip bytes did not decode, its chunk framing was broken, or it came with
 * two Content-Length lines (undici adds the two values up and fails the body, where curl and
 * hyper read a repeated equal value as one, RFC 9110 section 8.6). The gateway ran the request and
 * bills it. Straight against the gateway, the OpenAI and Anthropic SDKs read the body after their
 * retry loop, so such a failure is never resent; Airlock reads the body before its own headers go
 * out, so its 502 reached the SDK where it resends 5xx: the gateway ran and billed the request
 * three times (the OpenAI SDK's two resends; Claude Code's go up to ten). docs/gateway-spec.md §7
 * rule 3: a fee deducted without a full reply is not resent without deduplication.
 */
const WHOLE = chatAnswerText('A whole answer.');
const WHOLE_BYTES = Buffer.byteLength(WHOLE);
const CORRUPT_GZIP = gzipSync(WHOLE);
CORRUPT_GZIP.fill(0xff, 12, 24);

const head = (lines: string): string => `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n${lines}\r\n`;

interface BrokenAnswer extends RawAnswer {
  name: string;
  /** The row's class: a body cut short, or an answer that was no valid HTTP. */
  errorClass: 'stream_interrupted' | 'upstream_error';
}

const BROKEN_ANSWERS: BrokenAnswer[] = [
  {
    name: 'a close before its Content-Length',
    bytes: Buffer.from(`${head(`content-length: ${WHOLE_BYTES + 40}\r\n`)}${WHOLE}`),
    after: 'close',
    errorClass: 'stream_interrupted',
  },
  {
    // undici reports a cut of an answer whose connection closes after it as a length mismatch.
    name: 'a close before its Content-Length, on a connection closed after each answer',
    bytes: Buffer.from(`${head(`connection: close\r\ncontent-length: ${WHOLE_BYTES + 40}\r\n`)}${WHOLE}`),
    after: 'close',
    errorClass: 'stream_interrupted',
  },
  {
    // Claude Code resends this one straight against the gateway (unhappyTurns.test.ts); the OpenAI SDK does not.
    name: 'a reset before its Content-Length',
    bytes: Buffer.from(`${head(`content-length: ${WHOLE_BYTES}\r\n`)}${WHOLE.slice(0, 40)}`),
    after: 'reset',
    errorClass: 'stream_interrupted',
  },
  {
    name: 'gzip bytes that do not decode',
    bytes: Buffer.concat([Buffer.from(head(`content-encoding: gzip\r\ncontent-length: ${CORRUPT_GZIP.length}\r\n`)), CORRUPT_GZIP]),
    errorClass: 'upstream_error',
  },
  {
    name: 'a chunk size that is not hex',
    bytes: Buffer.from(`${head('transfer-encoding: chunked\r\n')}zz\r\n${WHOLE}\r\n0\r\n\r\n`),
    errorClass: 'upstream_error',
  },
  {
    name: 'its Content-Length twice',
    bytes: Buffer.from(`${head(`content-length: ${WHOLE_BYTES}\r\ncontent-length: ${WHOLE_BYTES}\r\n`)}${WHOLE}`),
    errorClass: 'upstream_error',
  },
];

let standIn: RawGateway;
let harness: Harness;

beforeAll(async () => {
  standIn = await startRawGateway(BROKEN_ANSWERS[0]!);
  harness = await startHarness({ profile: { baseUrl: standIn.baseUrl } });
});
afterAll(async () => {
  await harness.close();
  await standIn.close();
});

describe('a whole chat answer whose body failed after its 200', () => {
  it.each(BROKEN_ANSWERS.map((broken) => [broken.name, broken] as const))(
    '%s: the SDK is told not to resend what the gateway ran',
    async (_name, broken) => {
      standIn.reset(broken);
      const ended = harness.nextEnd();
      const failure = await sdkChatFailure(harness.proxy.url);
      expect(failure?.status).toBe(502);
      expect(failure?.headers?.get('x-should-retry')).toBe('false');
      expect(standIn.requestsReceived).toBe(1);
      const end = await ended;
      expect(end.errorClass).toBe(broken.errorClass);
      // The gateway answered: no cause or fix of the window's may send the user to the network.
      const shown = explanationOf(end.errorClass!, end.status, end.errorMessage, end.errorCode);
      expect(`${failure?.message} ${shown.meaning} ${shown.fix}`).not.toMatch(/connection to the gateway failed|check the network/i);
      expect(findSentinel(`${failure?.message}`)).toBeNull();
    },
  );
});
