import { describe, expect, it } from 'vitest';
import type { RequestLifecycleEvent } from '../../../proxy/contracts/lifecycle.ts';
import { deserializeEvents, serializeEvents } from '../../../proxy/store/write/logThreadMessages.ts';
import { capturedBodies, endEvent, startEvent } from '../../support/lifecycleEvents.ts';

/** A small Buffer.from result is a view into Node's shared buffer pool (64 KiB), as captured bodies often are. */
const pooledBody = (text: string): Buffer => {
  const body = Buffer.from(text);
  expect(body.buffer.byteLength).toBeGreaterThan(body.length);
  return body;
};

describe('serializeEvents / deserializeEvents', () => {
  it('gives back the same events, bodies as Buffers', () => {
    const events: RequestLifecycleEvent[] = [
      startEvent('alk_a'),
      endEvent('alk_a', {
        bodies: capturedBodies({
          requestBody: pooledBody('{"model":"m"}'),
          responseBody: Buffer.from([0, 255, 128]),
          streamText: 'hé 你好',
        }),
      }),
      endEvent('alk_b', { bodies: capturedBodies({ requestBody: null, responseBody: null }) }),
    ];
    const roundTripped = deserializeEvents(serializeEvents(events));
    expect(roundTripped).toEqual(events);
    const end = roundTripped[1] as Extract<RequestLifecycleEvent, { type: 'end' }>;
    expect(Buffer.isBuffer(end.bodies.requestBody)).toBe(true);
    expect(end.bodies.responseBody?.equals(Buffer.from([0, 255, 128]))).toBe(true);
  });

  it('writes a pooled body as its own bytes, not the pool behind it', () => {
    const body = pooledBody('x'.repeat(40));
    const serialized = serializeEvents([endEvent('alk_a', { bodies: capturedBodies({ requestBody: body, responseBody: null }) })]);
    expect(serialized.byteLength).toBeLessThan(body.buffer.byteLength);
  });

  it('returns a buffer that owns all of its memory, so posting can move it without taking memory from others', () => {
    const serialized = serializeEvents([startEvent('alk_a')]);
    expect(serialized.byteOffset).toBe(0);
    expect(serialized.buffer.byteLength).toBe(serialized.byteLength);
  });
});
