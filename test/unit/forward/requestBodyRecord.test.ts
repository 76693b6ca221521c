import { describe, expect, it } from 'vitest';
import { ArrivingBody } from '../../../proxy/forward/arrivingBody.ts';
import { RequestBodyRecord } from '../../../proxy/forward/requestBodyRecord.ts';

// What the log keeps of a body sent on while it arrived, when the exchange ends before the upload does.
const noKey = { maskBytes: (bytes: Buffer) => bytes, longestEscapedChars: 0 };

function arrivingOf(first: string, declaredBytes: number): { arriving: ArrivingBody; record: RequestBodyRecord } {
  const chunks = [Buffer.from(first)];
  const arriving = new ArrivingBody(chunks, declaredBytes);
  const record = new RequestBodyRecord(1024, noKey);
  record.add(chunks[0]!);
  record.follow(arriving);
  return { arriving, record };
}

function arrive(arriving: ArrivingBody, text: string): void {
  arriving.clientChunks.push(Buffer.from(text));
  arriving.arrived();
}

describe('the request body record of a body still arriving', () => {
  it('is whole, with no note, when the upload ended before the exchange', () => {
    const { arriving, record } = arrivingOf('{"model":', 13);
    arrive(arriving, '"m"}');
    expect(record.close()).toBeNull();
    expect(record.truncated).toBe(false);
    expect(record.toBuffer()?.toString()).toBe('{"model":"m"}');
  });

  it('stays cut, with how much had come, when the exchange ended first, whatever arrives after', () => {
    const { arriving, record } = arrivingOf('{"model":', 13);
    expect(record.truncated).toBe(true);
    expect(record.close()).toBe(
      'the client had sent 9 of its 13 declared bytes when the exchange ended: the logged request body is cut there',
    );
    arrive(arriving, '"m"}');
    expect(record.truncated).toBe(true);
    expect(record.toBuffer()?.toString()).toBe('{"model":');
  });
});
