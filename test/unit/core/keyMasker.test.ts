import { describe, expect, it } from 'vitest';
import { KeyMasker, sameLengthMask } from '../../../proxy/core/keyMasker.ts';
import { REDACTED } from '../../../proxy/core/redact.ts';
import { findSentinel, SENTINEL_KEY } from '../../support/sentinel.ts';
import { splitBySizes } from '../../simulator/chatReply.ts';

const masker = KeyMasker.for(SENTINEL_KEY);
const base64 = (text: string) => Buffer.from(text).toString('base64');

function streamText(pieces: readonly string[]): { passed: string[]; whole: string } {
  const stream = masker.textStream();
  const passed = pieces.map((piece) => stream.push(piece));
  passed.push(stream.end());
  return { passed, whole: passed.join('') };
}

describe('KeyMasker.maskText', () => {
  it.each([
    ['raw', SENTINEL_KEY],
    ['URL-encoded', encodeURIComponent(SENTINEL_KEY)],
    ['base64', base64(SENTINEL_KEY)],
    ['base64 at offset 1', base64(`u${SENTINEL_KEY}`)],
    ['base64 at offset 2', base64(`us${SENTINEL_KEY}`)],
    ['base64url at offset 1', Buffer.from(`\u00ff${SENTINEL_KEY}`).toString('base64url')],
  ])('masks the %s form', (_label, form) => {
    const masked = masker.maskText(`id=req_${form};`);
    expect(findSentinel(masked)).toBeNull();
    expect(masked).toContain(REDACTED);
  });

  it('leaves text without the key as it is, the same string', () => {
    const text = 'sk-proj-abcdefghijklmnopqrstuvwxyzABCDEFGH0123456789 looks like a key but is not this one';
    expect(masker.maskText(text)).toBe(text);
  });
});

describe('a placeholder key of a local gateway', () => {
  it('is not masked out of answers: a word like "test" would vanish from every one', () => {
    const short = KeyMasker.for('test');
    const text = 'a test of the test suite';
    expect(short.maskText(text)).toBe(text);
    const stream = short.textStream();
    expect([stream.push('a tes'), stream.push('t'), stream.end()].join('')).toBe('a test');
    expect(short.byteStream().push(Buffer.from(text)).toString()).toBe(text);
  });
});

describe('KeyMasker.maskHeaders', () => {
  it('masks every value that holds the key, in lists too, and says whether it changed any', () => {
    const headers: Record<string, string | string[]> = {
      'x-request-id': `req_${SENTINEL_KEY}`,
      'set-thing': ['a', `b ${base64(SENTINEL_KEY)}`],
      'content-type': 'application/json',
    };
    expect(masker.maskHeaders(headers)).toBe(true);
    expect(headers).toEqual({
      'x-request-id': `req_${REDACTED}`,
      'set-thing': ['a', expect.stringContaining(REDACTED)],
      'content-type': 'application/json',
    });
    expect(findSentinel(JSON.stringify(headers))).toBeNull();
    expect(masker.maskHeaders({ 'x-request-id': 'req_123' })).toBe(false);
  });
});

describe('KeyTextStream: the key streamed in pieces', () => {
  it.each([[[1]], [[2]], [[3]], [[2, 3]], [[3, 2, 1]], [[7, 1, 13]]])('is masked whatever the cut (%j characters a piece)', (sizes) => {
    const text = `Here is the key you use: ${SENTINEL_KEY} (keep it safe).`;
    const { passed, whole } = streamText(splitBySizes(text, sizes));
    expect(whole).toBe(`Here is the key you use: ${REDACTED} (keep it safe).`);
    for (let index = 1; index <= passed.length; index += 1) expect(findSentinel(passed.slice(0, index).join(''))).toBeNull();
  });

  it('holds back only an end that could still begin the key, and only until the next piece', () => {
    const stream = masker.textStream();
    expect(stream.push('I ask')).toBe('I a');
    expect(stream.holding).toBe(true);
    expect(stream.push(' you')).toBe('sk you');
    expect(stream.push('r sk-air')).toBe('r ');
    expect(stream.push('port')).toBe('sk-airport');
    expect(stream.holding).toBe(false);
    expect(stream.end()).toBe('');
  });

  it('passes a piece with no partial match through as the very same string', () => {
    const stream = masker.textStream();
    const piece = 'Hello, world. Nothing to hide here.';
    expect(stream.push(piece)).toBe(piece);
  });

  it('releases a short start at the end, and masks a long run of the key that breaks off or ends the text', () => {
    expect(streamText(['a sk-', 'ai']).whole).toBe('a sk-ai');
    const most = SENTINEL_KEY.slice(0, -3);
    expect(streamText(splitBySizes(`key ${most}`, [2, 3])).whole).toBe(`key ${REDACTED}`);
    expect(streamText(splitBySizes(`key ${most}. More text`, [2, 3])).whole).toBe(`key ${REDACTED}. More text`);
    const aFew = SENTINEL_KEY.slice(0, 12);
    expect(streamText(splitBySizes(`key ${aFew}. More`, [2])).whole).toBe(`key ${aFew}. More`);
  });

  it('masks the key twice in a row and other forms of it', () => {
    const text = `${SENTINEL_KEY}${SENTINEL_KEY} and ${base64(`x${SENTINEL_KEY}`)}`;
    const { whole } = streamText(splitBySizes(text, [3]));
    expect(findSentinel(whole)).toBeNull();
    expect(whole.startsWith(`${REDACTED}${REDACTED} and `)).toBe(true);
  });

  it('passes text outside ASCII untouched', () => {
    expect(streamText(['日本語 ', 'sk', '-😀 done']).whole).toBe('日本語 sk-😀 done');
  });
});

describe('KeyByteStream: a body relayed chunk by chunk', () => {
  const body = Buffer.from(JSON.stringify({ id: 'x', revised_prompt: `draw ${SENTINEL_KEY} please`, n: 1 }));

  it.each([[1], [2], [5], [17], [body.length]])('keeps the length and masks the key, in chunks of %i bytes', (size) => {
    const stream = masker.byteStream();
    const out: Buffer[] = [];
    for (let at = 0; at < body.length; at += size) out.push(stream.push(body.subarray(at, at + size)));
    out.push(stream.end());
    const relayed = Buffer.concat(out);
    expect(relayed.length).toBe(body.length);
    expect(findSentinel(relayed)).toBeNull();
    expect(JSON.parse(relayed.toString('utf8'))).toMatchObject({ revised_prompt: `draw ${sameLengthMask(SENTINEL_KEY.length)} please` });
    expect(
      out
        .slice(0, -1)
        .every(
          (chunk, index) => findSentinel(Buffer.concat(out.slice(0, index + 1))) === null && chunk.length <= size + SENTINEL_KEY.length,
        ),
    ).toBe(true);
  });

  it('hands back a chunk with no key and no partial end as the very same buffer', () => {
    const stream = masker.byteStream();
    const chunk = Buffer.from('{"ok":true}\n');
    expect(stream.push(chunk)).toBe(chunk);
  });

  it('masks a long run of the key that the body ends on', () => {
    const stream = masker.byteStream();
    const cut = Buffer.concat([stream.push(Buffer.from(`tail ${SENTINEL_KEY.slice(0, 40)}`)), stream.end()]);
    expect(cut.toString()).toBe(`tail ${sameLengthMask(40)}`);
  });
});

describe('KeyChunkStream: decoded text relayed chunk by chunk', () => {
  it('replaces the key by the word, held across a chunk boundary only while it could be the key', () => {
    const stream = masker.chunkStream();
    expect(stream.push(`data: {"id":"${SENTINEL_KEY.slice(0, 20)}`)).toBe('data: {"id":"');
    expect(stream.push(`${SENTINEL_KEY.slice(20)}"}\n\n`)).toBe(`${REDACTED}"}\n\n`);
    expect(stream.push('data: [DONE]\n\n')).toBe('data: [DONE]\n\n');
    expect(stream.masked).toBe(true);
    expect(stream.end()).toBe('');
  });

  it('passes a chunk that ends an event as the very same string', () => {
    const stream = masker.chunkStream();
    const chunk = 'data: {"choices":[{"delta":{"content":"sk"}}]}\n\n';
    expect(stream.push(chunk)).toBe(chunk);
    expect(stream.masked).toBe(false);
  });
});

describe('sameLengthMask', () => {
  it.each([
    [3, '***'],
    [10, REDACTED],
    [14, `${REDACTED}****`],
  ])('%i characters', (length, mask) => {
    expect(sameLengthMask(length)).toBe(mask);
    expect(mask).toHaveLength(length);
  });
});
