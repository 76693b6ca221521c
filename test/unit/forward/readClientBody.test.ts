import type { IncomingMessage, ServerResponse } from 'node:http';
import { PassThrough } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { BodyTooLargeError, CONTIGUOUS_BODY_MIN_BYTES, readClientBody } from '../../../proxy/forward/requestBody.ts';
import { FIRST_SCAN_BYTES } from '../../../proxy/forward/scanQueue.ts';
import { MAX_JSON_NESTING_DEPTH } from '../../../proxy/contracts/defaults.ts';

const LIMIT_BYTES = 1024 * 1024;

/** A request as the server hands it over: a readable body with headers. */
function clientRequest(headers: Record<string, string>): PassThrough & { headers: Record<string, string> } {
  return Object.assign(new PassThrough(), { headers });
}

function response(): ServerResponse & { continues: number } {
  const res = { continues: 0, writeContinue: () => (res.continues += 1) };
  return res as unknown as ServerResponse & { continues: number };
}

const read = (req: PassThrough, res = response(), limitBytes = LIMIT_BYTES): ReturnType<typeof readClientBody> =>
  readClientBody(req as unknown as IncomingMessage, res, { limitBytes, maxJsonDepth: MAX_JSON_NESTING_DEPTH });

describe('readClientBody', () => {
  it('refuses a declared size past the limit before reading a byte, and never asks for the body', async () => {
    const req = clientRequest({ 'content-type': 'application/json', 'content-length': String(LIMIT_BYTES + 1), expect: '100-continue' });
    const res = response();
    const refusal = read(req, res);
    await expect(refusal).rejects.toBeInstanceOf(BodyTooLargeError);
    await expect(refusal).rejects.toMatchObject({ limitBytes: LIMIT_BYTES, declaredBytes: LIMIT_BYTES + 1 });
    expect(req.listenerCount('data')).toBe(0);
    expect(res.continues).toBe(0);
  });

  it('asks a client that waits for it to send its body', async () => {
    const req = clientRequest({ 'content-type': 'application/json', 'content-length': '2', expect: '100-continue' });
    const res = response();
    const body = read(req, res);
    req.end('{}');
    await expect(body).resolves.toMatchObject({ byteLength: 2 });
    expect(res.continues).toBe(1);
  });

  it('cuts off a chunked body at the chunk that passes the limit, keeps none of it and reads the rest away', async () => {
    const req = clientRequest({ 'content-type': 'application/json' });
    const refusal = read(req);
    const chunk = Buffer.alloc(256 * 1024, 0x20);
    for (let written = 0; written <= LIMIT_BYTES; written += chunk.length) req.write(chunk);
    await expect(refusal).rejects.toMatchObject({ name: 'BodyTooLargeError', declaredBytes: null });
    // Still flowing: whatever the client sends after the refusal is dropped, so it can read the answer.
    expect(req.readableFlowing).toBe(true);
    req.write(chunk);
    await new Promise((resolve) => setImmediate(resolve));
    expect(req.readableLength).toBe(0);
  });

  it('accepts a chunked body of exactly the limit', async () => {
    const req = clientRequest({ 'content-type': 'application/octet-stream' });
    const body = read(req);
    req.end(Buffer.alloc(LIMIT_BYTES));
    await expect(body).resolves.toMatchObject({ byteLength: LIMIT_BYTES, scan: null });
  });

  it('scans a JSON body while it arrives and keeps its chunks by reference', async () => {
    const req = clientRequest({ 'content-type': 'application/json' });
    const body = read(req);
    const pieces = ['{"model":"gpt-4o', '-mini","stream":true,', '"messages":[]}'].map((text) => Buffer.from(text));
    for (const piece of pieces) req.write(piece);
    req.end();
    const read_ = await body;
    expect(read_.scan).toMatchObject({ model: 'gpt-4o-mini', stream: true, maxDepth: 2, structuralMarks: 7 });
    expect(Buffer.concat(read_.chunks).toString()).toBe(Buffer.concat(pieces).toString());
  });

  it('scans a chunked body past the first slice a slice per turn, to the same result', async () => {
    const keys = Array.from({ length: 60_000 }, (_unused, index) => `"k${index}":${index}`);
    const json = Buffer.from(`{"model":"m",${keys.join(',')}}`);
    expect(json.length).toBeGreaterThan(4 * FIRST_SCAN_BYTES);
    const req = clientRequest({ 'content-type': 'application/json' });
    const body = read(req);
    for (let start = 0; start < json.length; start += 64 * 1024) req.write(json.subarray(start, start + 64 * 1024));
    req.end();
    const read_ = await body;
    expect(read_.scan).toMatchObject({ model: 'm', maxDepth: 1, structuralMarks: 1 + 60_001 + 60_000, tooDeep: false });
    expect(Buffer.concat(read_.chunks).equals(json)).toBe(true);
  });

  it('keeps nothing of a body nested past the limit, however long it goes on', async () => {
    const req = clientRequest({ 'content-type': 'application/json' });
    const body = read(req);
    req.write(`{"x":${'['.repeat(MAX_JSON_NESTING_DEPTH + 1)}`);
    for (let index = 0; index < 8; index += 1) req.write('['.repeat(64 * 1024));
    req.end();
    const read_ = await body;
    expect(read_.scan?.tooDeep).toBe(true);
    expect(read_.chunks).toEqual([]);
    expect(read_.byteLength).toBe(6 + MAX_JSON_NESTING_DEPTH + 8 * 64 * 1024);
  });

  it('copies a large declared body into one buffer of its own as it arrives, letting the socket reads go', async () => {
    const bytes = CONTIGUOUS_BODY_MIN_BYTES;
    const req = clientRequest({ 'content-type': 'application/json', 'content-length': String(bytes) });
    const body = read(req, response(), 64 * LIMIT_BYTES);
    const reads: Buffer[] = [];
    req.write('{"model":"m","input":"');
    for (let sent = 22; sent < bytes - 2; sent += 64 * 1024) {
      const piece = Buffer.alloc(Math.min(64 * 1024, bytes - 2 - sent), 0x61);
      reads.push(piece);
      req.write(piece);
    }
    req.end('"}');
    const read_ = await body;
    expect(read_.chunks).toHaveLength(1);
    const [whole] = read_.chunks;
    // Its own backing store of exactly the body's size: no socket read is held by it.
    expect(whole!.buffer.byteLength).toBe(bytes);
    expect(reads.some((piece) => piece.buffer === whole!.buffer)).toBe(false);
    expect(read_.scan).toMatchObject({ model: 'm', isObject: true });
    expect(whole!.subarray(0, 22).toString()).toBe('{"model":"m","input":"');
    expect(whole!.subarray(bytes - 2).toString()).toBe('"}');
  });

  it('keeps a smaller body as the reads it arrived in, without a copy', async () => {
    const req = clientRequest({ 'content-type': 'application/json', 'content-length': String(2 * 64 * 1024) });
    const body = read(req);
    const reads = [Buffer.alloc(64 * 1024, 0x20), Buffer.alloc(64 * 1024, 0x20)];
    reads[0]![0] = 0x7b;
    reads[1]![64 * 1024 - 1] = 0x7d;
    for (const piece of reads) req.write(piece);
    req.end();
    const { chunks } = await body;
    expect(chunks).toHaveLength(2);
    for (const [index, chunk] of chunks.entries()) expect(chunk.buffer).toBe(reads[index]!.buffer);
  });

  it('decodes a compressed body as it arrives: the scan and the chunks see the JSON, its size is the decoded one', async () => {
    const json = JSON.stringify({ model: 'm', input: 'a'.repeat(4 * 1024 * 1024) });
    const coded = gzipSync(json);
    const req = clientRequest({ 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': String(coded.length) });
    const body = read(req, response(), 64 * LIMIT_BYTES);
    req.end(coded);
    const read_ = await body;
    expect(read_.byteLength).toBe(json.length);
    expect(read_.scan).toMatchObject({ model: 'm', isObject: true });
    expect(Buffer.concat(read_.chunks).toString()).toBe(json);
  });

  // A client may send the mark's bytes in reads of their own (a chunked upload written byte by byte).
  it.each([
    ['whole in the first read', [[0xef, 0xbb, 0xbf, 0x7b], [0x7d]], '{}'],
    ['one byte, then the rest', [[0xef], [0xbb, 0xbf, 0x7b, 0x7d]], '{}'],
    [
      'two bytes, then the rest',
      [
        [0xef, 0xbb],
        [0xbf, 0x7b, 0x7d],
      ],
      '{}',
    ],
    ['a byte a read', [[0xef], [0xbb], [0xbf], [0x7b], [0x7d]], '{}'],
    [
      'alone, then the JSON',
      [
        [0xef, 0xbb, 0xbf],
        [0x7b, 0x7d],
      ],
      '{}',
    ],
  ])('takes off a UTF-8 byte order mark that arrives %s', async (_case, reads, json) => {
    const req = clientRequest({ 'content-type': 'application/json' });
    const body = read(req);
    for (const bytes of reads) {
      req.write(Buffer.from(bytes));
      await new Promise((resolve) => setImmediate(resolve));
    }
    req.end();
    const read_ = await body;
    expect(Buffer.concat(read_.chunks).toString('latin1')).toBe(json);
    expect(read_.byteLength).toBe(json.length);
    expect(read_.scan).toMatchObject({ isObject: true });
  });

  it.each([
    ['the start of a mark and nothing else', [0xef, 0xbb]],
    ['a second mark after the first', [0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf, 0x7b, 0x7d]],
    ['bytes that only begin like a mark', [0xef, 0x7b, 0x7d]],
  ])('keeps %s as it came', async (_case, bytes) => {
    const req = clientRequest({ 'content-type': 'application/json' });
    const body = read(req);
    for (const byte of bytes) {
      req.write(Buffer.from([byte]));
      await new Promise((resolve) => setImmediate(resolve));
    }
    req.end();
    const read_ = await body;
    const kept = bytes[2] === 0xbf ? bytes.slice(3) : bytes;
    expect([...Buffer.concat(read_.chunks)]).toEqual(kept);
    expect(read_.byteLength).toBe(kept.length);
    expect(read_.scan).toMatchObject({ isObject: false });
  });

  it('rejects when the client leaves in the middle of a compressed body', async () => {
    const req = clientRequest({ 'content-type': 'application/json', 'content-encoding': 'gzip' });
    const body = read(req);
    const coded = gzipSync(JSON.stringify({ model: 'm', input: 'x'.repeat(64 * 1024) }));
    req.write(coded.subarray(0, coded.length >> 1));
    req.destroy();
    await expect(body).rejects.toThrow('closed the connection');
  });
});
