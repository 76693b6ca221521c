import { describe, expect, it } from 'vitest';
import type { RequestLifecycleEvent } from '../../../proxy/contracts/lifecycle.ts';
import { decodeEvents, encodeEvents, EventBatchWriter } from '../../../proxy/store/write/eventBatch.ts';
import { capturedBodies, endEvent, startEvent } from '../../support/lifecycleEvents.ts';

/** A small Buffer.from result is a view into Node's shared buffer pool, as captured bodies often are. */
const pooledBody = (text: string): Buffer => {
  const body = Buffer.from(text);
  expect(body.buffer.byteLength).toBeGreaterThan(body.length);
  return body;
};

const CASES: { name: string; events: RequestLifecycleEvent[] }[] = [
  { name: 'a start with notes and a replay', events: [startEvent('alk_a', { notes: ['dropped `n`'], replayOf: 'alk_0' })] },
  {
    name: 'headers, usage and progress, a fallback among them',
    events: [
      {
        type: 'headers',
        requestId: 'alk_a',
        status: 200,
        ttfbMs: 12.5,
        upstreamRequestId: null,
        retries: 1,
        fallback: {
          profileId: 'p2',
          upstreamModel: 'm2',
          chain: [{ profileId: 'p1', model: 'm', status: 429, errorClass: 'rate_limited', note: 'busy' }],
        },
      },
      { type: 'usage', requestId: 'alk_a', usage: { inputTokens: 3, outputTokens: 4, cachedInputTokens: 1 }, responseModel: 'm' },
      { type: 'progress', requestId: 'alk_a', usage: { inputTokens: 3, outputTokens: 1 }, costCredits: null },
    ],
  },
  {
    name: 'an end with a pooled request body, a binary response, stream text and event offsets',
    events: [
      endEvent('alk_a', {
        gatewayKeys: [{ keyId: 'k1', label: 'first' }],
        logNotes: ['note'],
        bodies: capturedBodies({
          requestBody: pooledBody('{"model":"m"}'),
          responseBody: Buffer.from([0, 255, 128]),
          streamText: 'hé 你好 🚀',
          eventOffsetsMs: Uint32Array.from([0, 7, 4_000_000_000]),
        }),
      }),
    ],
  },
  {
    name: 'an end without bodies, its offsets null',
    events: [endEvent('alk_b', { bodies: capturedBodies({ requestBody: null, responseBody: null, eventOffsetsMs: null }) })],
  },
  { name: 'an end without offsets at all', events: [endEvent('alk_c')] },
  // A client or gateway may send text that is not well-formed UTF-16; the log keeps it as it was.
  {
    name: 'lone surrogates in text',
    events: [endEvent('alk_d', { errorMessage: 'half \ud83d of it', bodies: capturedBodies({ streamText: '\udc00x' }) })],
  },
  { name: 'several requests in one batch', events: [startEvent('r1'), startEvent('r2'), endEvent('r2'), endEvent('r1')] },
  { name: 'no events', events: [] },
];

describe('encodeEvents / decodeEvents', () => {
  it.each(CASES)('gives back $name as they were, bodies as Buffers', ({ events }) => {
    const roundTripped = decodeEvents(encodeEvents(events));
    expect(roundTripped).toStrictEqual(events);
    for (const event of roundTripped) {
      if (event.type !== 'end') continue;
      for (const body of [event.bodies.requestBody, event.bodies.responseBody]) if (body !== null) expect(Buffer.isBuffer(body)).toBe(true);
    }
  });

  it('reads a batch that lies inside a larger buffer (as posted, a view of what it owns)', () => {
    const events = [
      endEvent('alk_a', { bodies: capturedBodies({ requestBody: Buffer.from('abc'), eventOffsetsMs: Uint32Array.from([5]) }) }),
    ];
    const bytes = encodeEvents(events);
    const inside = new Uint8Array(bytes.byteLength + 3);
    inside.set(bytes, 3);
    expect(decodeEvents(inside.subarray(3))).toStrictEqual(events);
  });

  it('writes a pooled body as its own bytes, not the pool behind it', () => {
    const body = pooledBody('x'.repeat(40));
    const batch = encodeEvents([endEvent('alk_a', { bodies: capturedBodies({ requestBody: body, responseBody: null }) })]);
    expect(batch.byteLength).toBeLessThan(body.buffer.byteLength);
  });

  it('grows past its first buffer for a large body and keeps every byte', () => {
    const large = Buffer.alloc(300 * 1024, 7);
    large[large.length - 1] = 9;
    const writer = new EventBatchWriter(1);
    writer.add(startEvent('big'));
    writer.add(endEvent('big', { bodies: capturedBodies({ responseBody: large }) }));
    const decoded = decodeEvents(writer.finish());
    expect(decoded).toHaveLength(2);
    const end = decoded[1];
    expect(end?.type === 'end' && end.bodies.responseBody?.equals(large)).toBe(true);
  });

  it('hands over a small batch in a buffer of its size, not its 64 KiB first one: the thread holds all of it until written', () => {
    const writer = new EventBatchWriter();
    writer.add(startEvent('alk_a'));
    const batch = writer.finish();
    expect(batch.buffer.byteLength).toBe(batch.byteLength);
    expect(decodeEvents(batch)).toStrictEqual([startEvent('alk_a')]);
  });

  it('keeps its buffer when the batch fills more than half of it', () => {
    const writer = new EventBatchWriter(1);
    writer.add(endEvent('big', { bodies: capturedBodies({ responseBody: Buffer.alloc(50 * 1024, 1) }) }));
    const batch = writer.finish();
    expect(batch.buffer.byteLength).toBe(64 * 1024);
    expect(batch.byteLength * 2).toBeGreaterThan(batch.buffer.byteLength);
  });

  it('adds an event whole or not at all: one that fails to encode leaves the batch readable', () => {
    const writer = new EventBatchWriter();
    writer.add(startEvent('alk_a'));
    // Offsets that are no typed array fail the event after its JSON and bodies were written.
    const brokenOffsets = { length: 1, buffer: new ArrayBuffer(2), byteOffset: 0, byteLength: 4 } as unknown as Uint32Array;
    const unwritable = endEvent('alk_b', { bodies: capturedBodies({ eventOffsetsMs: brokenOffsets }) });
    expect(() => writer.add(unwritable)).toThrow(RangeError);
    writer.add(startEvent('alk_c'));
    expect(decodeEvents(writer.finish())).toStrictEqual([startEvent('alk_a'), startEvent('alk_c')]);
  });

  it('returns a buffer of its own, so moving it to the log thread takes memory from nobody', () => {
    const neighbour = pooledBody('still here');
    const batch = encodeEvents([startEvent('alk_a')]);
    const moved = structuredClone(batch, { transfer: [batch.buffer] });
    expect(batch.buffer.detached).toBe(true);
    expect(neighbour.toString()).toBe('still here');
    expect(decodeEvents(moved)).toStrictEqual([startEvent('alk_a')]);
  });
});
