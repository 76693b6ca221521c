import { describe, expect, it } from 'vitest';
import { readFormFields, rewriteFormModel } from '../../../proxy/forward/multipartForm.ts';

const BOUNDARY = '----formdata-undici-0123456789';
const CONTENT_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

function form(parts: Array<{ name: string; value: Buffer | string; filename?: string; type?: string }>): Buffer {
  const pieces: Buffer[] = [];
  for (const part of parts) {
    const disposition = `Content-Disposition: form-data; name="${part.name}"${part.filename === undefined ? '' : `; filename="${part.filename}"`}`;
    const type = part.type === undefined ? '' : `\r\nContent-Type: ${part.type}`;
    pieces.push(Buffer.from(`--${BOUNDARY}\r\n${disposition}${type}\r\n\r\n`), Buffer.from(part.value), Buffer.from('\r\n'));
  }
  pieces.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(pieces);
}

/** The body as a socket may deliver it: in pieces of `size` bytes, cutting delimiters and values anywhere. */
function inPieces(body: Buffer, size: number): Buffer[] {
  const chunks: Buffer[] = [];
  for (let start = 0; start < body.length; start += size) chunks.push(body.subarray(start, start + size));
  return chunks;
}

const FILE = Buffer.from(Array.from({ length: 3000 }, (_, index) => index % 256));
const BODY = form([
  { name: 'file', value: FILE, filename: 'talk.mp3', type: 'audio/mpeg' },
  { name: 'model', value: 'whisper-1' },
  { name: 'stream', value: 'true' },
]);

describe('readFormFields', () => {
  it.each([1, 7, 64, BODY.length])('reads the fields after a file, whatever pieces of %i bytes the body came in', (size) => {
    const fields = readFormFields(inPieces(BODY, size), CONTENT_TYPE);
    expect(fields).toMatchObject({ model: 'whisper-1', stream: true });
    expect(fields?.parts.map(({ valueRange: _, ...part }) => part)).toEqual([
      { name: 'file', filename: 'talk.mp3', contentType: 'audio/mpeg', byteLength: FILE.length, value: null },
      { name: 'model', filename: null, contentType: null, byteLength: 9, value: 'whisper-1' },
      { name: 'stream', filename: null, contentType: null, byteLength: 4, value: 'true' },
    ]);
    const fileRange = fields?.parts[0]?.valueRange;
    expect(fileRange && BODY.subarray(fileRange.start, fileRange.end)).toEqual(FILE);
  });

  it('is not read for another content type, nor for a form without its boundary', () => {
    expect(readFormFields([BODY], 'application/octet-stream')).toBeNull();
    expect(readFormFields([BODY], 'multipart/form-data; boundary=other')).toBeNull();
  });

  it.each([1, 5, BODY.length])('sets the model in pieces of %i bytes, every other byte kept', (size) => {
    const chunks = inPieces(BODY, size);
    const fields = readFormFields(chunks, CONTENT_TYPE)!;
    const rewritten = rewriteFormModel(chunks, BODY.length, fields, 'whisper-large-v3');
    const sent = Buffer.concat(rewritten.chunks);
    expect(sent).toEqual(Buffer.from(BODY.toString('latin1').replace('\r\nwhisper-1\r\n', '\r\nwhisper-large-v3\r\n'), 'latin1'));
    expect(rewritten.byteLength).toBe(sent.length);
    expect(readFormFields([sent], CONTENT_TYPE)?.model).toBe('whisper-large-v3');
  });
});

// Servers differ on a repeated field: Go's FormValue and Werkzeug's MultiDict read the first, Django's MultiValueDict the last.
describe('a form that repeats a field Airlock reads', () => {
  it.each([
    {
      parts: [
        { name: 'model', value: 'whisper-1' },
        { name: 'file', value: FILE, filename: 'a.mp3' },
        { name: 'model', value: 'gpt-4o-transcribe' },
      ],
      repeated: 'model',
    },
    {
      parts: [
        { name: 'n', value: '1' },
        { name: 'prompt', value: 'a cat' },
        { name: 'n', value: '10' },
      ],
      repeated: 'n',
    },
    {
      parts: [
        { name: 'stream', value: 'false' },
        { name: 'stream', value: 'false' },
      ],
      repeated: 'stream',
    },
    // A video's length, read for its price per second (billedUnits.ts).
    {
      parts: [
        { name: 'seconds', value: '4' },
        { name: 'model', value: 'sora-2' },
        { name: 'seconds', value: '12' },
      ],
      repeated: 'seconds',
    },
    // Fields an API takes repeated, and a file beside the model, are no repeat of what Airlock reads.
    {
      parts: [
        { name: 'model', value: 'whisper-1' },
        { name: 'timestamp_granularities[]', value: 'word' },
        { name: 'timestamp_granularities[]', value: 'segment' },
      ],
      repeated: null,
    },
    {
      parts: [
        { name: 'image[]', value: FILE, filename: 'a.png' },
        { name: 'image[]', value: FILE, filename: 'b.png' },
        { name: 'model', value: 'gpt-image-1' },
      ],
      repeated: null,
    },
  ])('names it ($repeated) in any pieces', ({ parts, repeated }) => {
    const body = form(parts);
    for (const size of [1, 9, body.length]) expect(readFormFields(inPieces(body, size), CONTENT_TYPE)?.repeatedField).toBe(repeated);
  });
});
