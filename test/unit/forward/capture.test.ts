import { describe, expect, it } from 'vitest';
import { BodyCapture, MAX_BACKING_PER_CAPTURED_BYTE, ownTextBuffer } from '../../../proxy/forward/capture.ts';

/** A chunk as a socket read gives it: its own backing store, `slackBytes` of it outside the view. */
function socketChunk(text: string, slackBytes = 0): Buffer {
  const backing = Buffer.allocUnsafeSlow(slackBytes + Buffer.byteLength(text));
  backing.write(text, slackBytes);
  return backing.subarray(slackBytes);
}

function captured(limitBytes: number, chunks: Buffer[]): BodyCapture {
  const capture = new BodyCapture(limitBytes);
  for (const chunk of chunks) capture.add(chunk);
  return capture;
}

describe('BodyCapture', () => {
  it.each([
    { name: 'nothing', chunks: [], limitBytes: 100, text: null, truncated: false },
    { name: 'a small view of a larger read', chunks: [socketChunk('{"id":1}', 200)], limitBytes: 100, text: '{"id":1}', truncated: false },
    { name: 'one pooled chunk', chunks: [Buffer.from('data: {"a":1}\n\n')], limitBytes: 100, text: 'data: {"a":1}\n\n', truncated: false },
    {
      name: 'several chunks',
      chunks: [socketChunk('data: 1\n\n'), Buffer.from('data: 2\n\n'), socketChunk('data: [DONE]\n\n')],
      limitBytes: 100,
      text: 'data: 1\n\ndata: 2\n\ndata: [DONE]\n\n',
      truncated: false,
    },
    { name: 'past the cap', chunks: [socketChunk('abcdef'), socketChunk('ghijkl')], limitBytes: 8, text: 'abcdefgh', truncated: true },
  ])('$name: gives the captured bytes in a backing store at most twice their size', ({ chunks, limitBytes, text, truncated }) => {
    const capture = captured(limitBytes, chunks);
    const body = capture.toBuffer();
    expect(body?.toString('utf8') ?? null).toBe(text);
    expect(capture.truncated).toBe(truncated);
    if (body !== null) expect(body.buffer.byteLength).toBeLessThanOrEqual(body.length * MAX_BACKING_PER_CAPTURED_BYTE);
  });

  it('hands out a lone chunk that owns its memory as it is, without a copy', () => {
    const chunk = socketChunk('{"id":"chatcmpl-1","choices":[]}', 20);
    expect(captured(1024, [chunk]).toBuffer()).toBe(chunk);
  });

  it('copies a small slice of Node’s buffer pool, so holding it does not keep the whole pool alive', () => {
    const pooled = Buffer.from('{"id":"chatcmpl-1"}');
    expect(pooled.buffer.byteLength).toBeGreaterThan(pooled.length * MAX_BACKING_PER_CAPTURED_BYTE);
    const body = captured(1024, [pooled]).toBuffer();
    expect(body).not.toBe(pooled);
    expect(body?.buffer.byteLength).toBe(pooled.length);
  });

  describe("past its limit, with the key's masker", () => {
    /** A masker that finds no whole form (the cut-short start below is not one), forms up to `longestEscapedChars` long. */
    const unmaskingMasker = (longestEscapedChars: number) => ({ longestEscapedChars, maskBytes: (bytes: Buffer) => bytes });
    const KEY_START = 'sk-sentinel-';

    it('keeps no byte past the limit in the memory it hands out: a form cut short there is no longer readable', () => {
      const limitBytes = 4096;
      const capture = new BodyCapture(limitBytes, unmaskingMasker(600));
      capture.add(socketChunk(`${'a'.repeat(limitBytes + 10)}${KEY_START}`));
      const body = capture.toBuffer();
      expect(body?.toString('latin1')).toBe('a'.repeat(limitBytes));
      expect(capture.truncated).toBe(true);
      expect(Buffer.from(body?.buffer as ArrayBuffer).toString('latin1')).not.toContain(KEY_START.slice(0, 4));
    });

    it("copies the cut when the forms' margin would make its backing more than twice its length", () => {
      const limitBytes = 1024;
      const capture = new BodyCapture(limitBytes, unmaskingMasker(12_000));
      capture.add(socketChunk('b'.repeat(limitBytes * 20)));
      const body = capture.toBuffer();
      expect(body?.toString('latin1')).toBe('b'.repeat(limitBytes));
      expect(body?.buffer.byteLength).toBeLessThanOrEqual(limitBytes * MAX_BACKING_PER_CAPTURED_BYTE);
    });
  });

  it('joins several chunks once: later calls get the same Buffer', () => {
    const capture = captured(1024, [Buffer.from('data: 1\n\n'), Buffer.from('data: 2\n\n')]);
    const first = capture.toBuffer();
    expect(first?.buffer.byteLength).toBe(first?.length);
    expect(capture.toBuffer()).toBe(first);
  });
});

describe('ownTextBuffer', () => {
  it.each(['', 'plain', '{"error":"ключ отклонён"}', '😀'.repeat(100)])(
    'holds %j as UTF-8 in a backing store of exactly its size',
    (text) => {
      const bytes = ownTextBuffer(text);
      expect(bytes.toString('utf8')).toBe(text);
      expect(bytes.buffer.byteLength).toBe(Buffer.byteLength(text));
    },
  );
});
