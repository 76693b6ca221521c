import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { requestTimedOut, uploadStalled, watchRequestTimeout } from '../../../proxy/forward/uploadStall.ts';

describe('uploadStalled', () => {
  it.each([
    {
      name: 'the total timeout, sent on early',
      args: [900, 1000, { kind: 'total', totalTimeoutMs: 1000 }, true] as const,
      says: [
        'had sent 900 of its 1000 declared bytes',
        "the profile's total timeout (1000 ms) ran out",
        'the gateway was stopped before its end',
      ],
    },
    {
      name: 'the request timeout, sent on early',
      args: [900, 1000, { kind: 'request', requestTimeoutMs: 300000 }, true] as const,
      says: ["Airlock's request timeout (300000 ms from the request's start", 'the gateway was stopped before its end'],
    },
    {
      name: 'the request timeout, read whole first',
      args: [10, 1000, { kind: 'request', requestTimeoutMs: 1000 }, false] as const,
      says: ['had sent 10 of its 1000 declared bytes', 'Nothing was sent to the gateway.'],
    },
    {
      name: 'a chunked body (no declared size)',
      args: [10, null, { kind: 'request', requestTimeoutMs: 1000 }, false] as const,
      says: ['had sent 10 bytes of its body (of undeclared size)'],
    },
  ])('says how much had come and which limit ran out: $name', ({ args, says }) => {
    const [arrivedBytes, declaredBytes, limit, sentOn] = args;
    const refusal = uploadStalled(arrivedBytes, declaredBytes, limit, sentOn);
    expect(refusal).toMatchObject({ status: 408, errorClass: 'upload_stalled' });
    for (const words of says) expect(refusal.message).toContain(words);
  });
});

describe('the request timeout handed to a body read', () => {
  it('reaches the read registered for the socket once, and none after it unregistered', () => {
    const socket = new PassThrough();
    const heard: number[] = [];
    const unwatch = watchRequestTimeout(socket, (ms) => heard.push(ms));
    expect(requestTimedOut(socket, 1000)).toBe(true);
    expect(requestTimedOut(socket, 1000)).toBe(false);
    watchRequestTimeout(socket, (ms) => heard.push(ms))();
    unwatch();
    expect(requestTimedOut(socket, 2000)).toBe(false);
    expect(heard).toEqual([1000]);
  });
});
