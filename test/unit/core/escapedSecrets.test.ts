import { describe, expect, it } from 'vitest';
import { KeyMasker, sameLengthMask } from '../../../proxy/core/keyMasker.ts';
import { holdsWrappedLineBytes, unescapedReading } from '../../../proxy/core/escapedSecrets.ts';
import { knownSecretForms, REDACTED, redactKnownSecrets } from '../../../proxy/core/redact.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';

const masker = KeyMasker.for(SENTINEL_KEY);
const code = (char: string): number => char.charCodeAt(0);
const escapeEvery = (text: string): string =>
  [...text].map((char) => `\\u${code(char).toString(16).padStart(4, '0').toUpperCase()}`).join('');
const percentEvery = (text: string): string => [...text].map((char) => `%${code(char).toString(16).padStart(2, '0')}`).join('');
const entityEvery = (text: string): string => [...text].map((char) => `&#${code(char)};`).join('');

describe('a key written with escapes', () => {
  it.each([
    ['its dashes as \\u002d', SENTINEL_KEY.replaceAll('-', '\\u002d')],
    ['every character as an upper-case \\u escape', escapeEvery(SENTINEL_KEY)],
    ['its dashes percent-encoded', SENTINEL_KEY.replaceAll('-', '%2D')],
    ['every character percent-encoded, lower-case hex', percentEvery(SENTINEL_KEY)],
    ['every character as a decimal HTML reference', entityEvery(SENTINEL_KEY)],
    ['its dashes as hexadecimal HTML references', SENTINEL_KEY.replaceAll('-', '&#x2D;')],
    ['escapes of three kinds mixed', SENTINEL_KEY.replace('-', '%2d').replace('-', '\\u002D').replace('-', '&#45;')],
    // WHATWG HTML 13.2.5.80: a numeric reference's digits are read however many there are, leading zeros too.
    ['its dashes as decimal HTML references padded past seven digits', SENTINEL_KEY.replaceAll('-', '&#000000045;')],
    ['its dashes as hexadecimal HTML references padded past six digits', SENTINEL_KEY.replaceAll('-', '&#x00000002D;')],
  ])('is found and masked with %s, the text around it as written', (_name, escaped) => {
    const text = `{"m":"caf\\u00e9 100% &amp; key=${escaped}&next=1"}`;
    expect(masker.holdsForm(text)).toBe(true);
    expect(masker.holdsEscapedForm(text)).toBe(true);
    expect(masker.maskText(text)).toBe(`{"m":"caf\\u00e9 100% &amp; key=${REDACTED}&next=1"}`);
    expect(redactKnownSecrets(text, [SENTINEL_KEY])).toBe(masker.maskText(text));
    // Bytes keep their length (a Content-Length was sent): the mask is as long as the escaped key.
    const bytes = masker.maskBytes(Buffer.from(text)).toString('latin1');
    expect(bytes).toBe(text.replace(escaped, sameLengthMask(escaped.length)));
  });

  it('finds a key holding / written as \\/ or &sol;', () => {
    const slashKey = 'sk-or/v1/0123456789abcdef';
    const slashMasker = KeyMasker.for(slashKey);
    expect(slashMasker.holdsForm(`{"m":"${slashKey.replaceAll('/', '\\/').replace('-', '\\u002d')}"}`)).toBe(true);
    expect(slashMasker.maskText(`<p>${slashKey.replaceAll('/', '&sol;')}</p>`)).toBe(`<p>${REDACTED}</p>`);
  });

  it('reads no further a text without escapes, or with escapes that spell no key', () => {
    expect(masker.holdsForm(`{"m":"a line\\nand \\"quotes\\""}`)).toBe(false);
    expect(masker.holdsForm(`{"m":"caf\\u00e9 sk\\u002dairlock 50%2D &#45;"}`)).toBe(false);
    const plain = 'a line\\nand 100% &amp; more';
    expect(masker.maskText(plain)).toBe(plain);
  });

  it('takes an escaped backslash before u002d for the text it is, not for an escape', () => {
    const text = JSON.stringify({ m: SENTINEL_KEY.replaceAll('-', '\\u002d') });
    expect(JSON.parse(text).m).not.toContain(SENTINEL_KEY);
    expect(masker.holdsForm(text)).toBe(false);
  });

  it('keeps a JSON text meaning what it meant, but for the key, cut short too', () => {
    const value = { id: 7, quote: '"\\\u00e9\n', [SENTINEL_KEY]: [`a ${SENTINEL_KEY} b`, { deep: SENTINEL_KEY }] };
    const escaped = JSON.stringify(value).replaceAll('-', '\\u002d').replaceAll('\u00e9', '\\u00e9');
    expect(JSON.parse(masker.maskText(escaped))).toEqual({
      id: 7,
      quote: '"\\\u00e9\n',
      [REDACTED]: [`a ${REDACTED} b`, { deep: REDACTED }],
    });
    const cut = `{"m":"\\u0022${SENTINEL_KEY.replaceAll('-', '\\u002d')}\\u005c`;
    expect(masker.maskText(cut)).toBe(`{"m":"\\u0022${REDACTED}\\u005c`);
  });
});

describe('an escaped key cut across two pieces of a relayed body or a streamed field', () => {
  it.each([
    ['percent-encoded', percentEvery(SENTINEL_KEY)],
    ['JSON-escaped', escapeEvery(SENTINEL_KEY)],
    ['as HTML references', entityEvery(SENTINEL_KEY)],
  ])('%s, wherever the cut falls: bytes, chunks and field text come out masked whole, the rest as sent', (_name, escaped) => {
    const text = `key=${escaped}&next=1; 100%`;
    // A reference is read whole without its `;` too (HTML reads `&#49` so): cut just before its last
    // `;`, the key is masked without it, and the `;` passes on its own.
    const semicolonLeft = (mask: string): string[] => (escaped.endsWith(';') ? [`key=${mask};&next=1; 100%`] : []);
    for (let cut = 1; cut < text.length; cut += 1) {
      const bytes = masker.byteStream();
      const passedBytes = Buffer.concat([
        bytes.push(Buffer.from(text.slice(0, cut))),
        bytes.push(Buffer.from(text.slice(cut))),
        bytes.end(),
      ]).toString('latin1');
      expect([`key=${sameLengthMask(escaped.length)}&next=1; 100%`, ...semicolonLeft(sameLengthMask(escaped.length - 1))]).toContain(
        passedBytes,
      );
      const pieces = masker.textStream();
      expect([`key=${REDACTED}&next=1; 100%`, ...semicolonLeft(REDACTED)]).toContain(
        pieces.push(text.slice(0, cut)) + pieces.push(text.slice(cut)) + pieces.end(),
      );
      const chunks = masker.chunkStream();
      const passedText = chunks.push(text.slice(0, cut)) + chunks.push(text.slice(cut)) + chunks.end();
      expect([`key=${REDACTED}&next=1; 100%`, ...semicolonLeft(REDACTED)]).toContain(passedText);
    }
  });
});

/**
 * A backslash before a percent-escape or an HTML reference is no escape to the reader who decodes
 * those (a browser shows `\&#115;` as `\s`, a URL decoder `\%73` so), and JSON knows no `\%` or
 * `\&`: read as an escape of the character after it, it hid the key's first escape, and the key
 * passed whole.
 */
describe('an escaped key after a lone backslash', () => {
  it.each([
    ['percent-encoded', percentEvery(SENTINEL_KEY)],
    ['as HTML references', entityEvery(SENTINEL_KEY)],
  ])('%s: masked whole, and wherever a cut falls in a stream', (_name, escaped) => {
    const text = `see \\${escaped} then`;
    expect(masker.maskText(text)).toBe(`see \\${REDACTED} then`);
    // Cut just before a reference's last `;`, the key is masked without it (as in the cuts above).
    const masked = [`see \\${REDACTED} then`, ...(escaped.endsWith(';') ? [`see \\${REDACTED}; then`] : [])];
    for (let cut = 1; cut < text.length; cut += 1) {
      const pieces = masker.textStream();
      expect(masked).toContain(pieces.push(text.slice(0, cut)) + pieces.push(text.slice(cut)) + pieces.end());
    }
  });
});

/**
 * Go's encoding/json writes `<`, `>` and `&` in strings as `\u003c`, `\u003e` and `\u0026` unless
 * told not to (its Marshal doc: HTML-safe by default), so a Go-built gateway (one-api, new-api)
 * escapes them in every event that carries code or HTML. No form of the key holds any of them: such
 * an escape can never spell part of the key, and the event is read as written.
 */
describe('escapes of characters no form of the key holds', () => {
  const forms = knownSecretForms([SENTINEL_KEY]);
  const goEscaped = (text: string): string => text.replaceAll('<', '\\u003c').replaceAll('>', '\\u003e').replaceAll('&', '\\u0026');
  const event = `data: ${goEscaped(JSON.stringify({ choices: [{ delta: { content: '<div class="a">x && y</div> 100% sk' } }] }))}`;

  it('leave an event without the key unread: it takes no escaped reading', () => {
    expect(event).toContain('\\u003cdiv');
    expect(unescapedReading(event, forms)).toBeNull();
    expect(masker.holdsForm(event)).toBe(false);
    expect(masker.holdsEscapedForm(event)).toBe(false);
  });

  it.each([
    ['its dashes as \\u002d', SENTINEL_KEY.replaceAll('-', '\\u002d')],
    ['every character as an upper-case \\u escape', escapeEvery(SENTINEL_KEY)],
    ['every character percent-encoded, lower-case hex', percentEvery(SENTINEL_KEY)],
    ['every character as a decimal HTML reference', entityEvery(SENTINEL_KEY)],
    ['its dashes as zero-padded hexadecimal HTML references', SENTINEL_KEY.replaceAll('-', '&#x0002D;')],
    ['its dashes as zero-padded decimal HTML references', SENTINEL_KEY.replaceAll('-', '&#0045;')],
  ])('still read, next to them, where they write the key %s', (_name, escaped) => {
    const text = `${event.slice(0, -2)} ${escaped}"}`;
    expect(unescapedReading(text, forms)).not.toBeNull();
    expect(masker.holdsForm(text)).toBe(true);
    expect(masker.maskText(text)).toBe(`${event.slice(0, -2)} ${REDACTED}"}`);
  });
});

describe('a key in base64 wrapped into lines', () => {
  // MIME writes base64 in lines of at most 76 characters (RFC 2045 section 6.8), PEM in lines of 64
  // (RFC 7468 section 2); their decoders (base64 -d, Python's b64decode) read past the line breaks.
  const wrapped = (text: string, width: number, lineBreak: string): string =>
    Buffer.from(text)
      .toString('base64')
      .replace(new RegExp(`(.{${width}})(?=.)`, 'g'), `$1${lineBreak}`);
  /** What a base64 decoder reads from the text's long runs, line breaks (raw or JSON-escaped) read past. */
  const decodedBase64 = (text: string): string =>
    Buffer.from(
      text
        .replace(/\\[rn]|\s/g, '')
        .match(/[A-Za-z0-9+/=]{20,}/g)
        ?.join('') ?? '',
      'base64',
    ).toString('latin1');

  it.each([
    ['MIME lines, CRLF, in a text', 76, '\r\n'],
    ['PEM lines, LF, in a text', 64, '\n'],
    ['MIME lines written into a JSON string as \\r\\n', 76, '\\r\\n'],
    ['PEM lines written into a JSON string as \\n', 64, '\\n'],
  ])('of "Bearer <key>" is found and masked, with %s', (_name, width, lineBreak) => {
    for (const prefix of ['Bearer ', 'Authorization: Bearer ', 'x']) {
      const encoded = wrapped(`${prefix}${SENTINEL_KEY}`, width, lineBreak);
      const text = `{"error":{"message":"echo: ${encoded}","note":"a line\\nand more"}}`;
      expect(masker.holdsForm(text)).toBe(true);
      const masked = masker.maskText(text);
      expect(decodedBase64(masked)).not.toContain(SENTINEL_KEY.slice(3, 30));
      expect(masked).toContain('"note":"a line\\nand more"');
      expect(redactKnownSecrets(text, [SENTINEL_KEY])).toBe(masked);
      expect(masker.maskBytes(Buffer.from(text)).length).toBe(Buffer.byteLength(text));
    }
  });

  it('finds the wrapped form in a large body whose only hint is a raw line break (no %, \\ or &)', () => {
    // The key starts 40 bytes into the first line's 57, so its base64 crosses the break.
    const encoded = wrapped(`Authorization: Bearer ${'x'.repeat(18)}${SENTINEL_KEY}`, 76, '\r\n');
    const body = Buffer.from(`${'plain words. '.repeat(2000)}\n${encoded}\n`);
    expect(body.length).toBeGreaterThan(16 * 1024);
    expect(masker.holdsFormBytes(body)).toBe(true);
  });

  const base64Line = (chars: number) => 'QUJD'.repeat(Math.ceil(chars / 4)).slice(0, chars);
  it.each([
    ['PEM lines, LF', `${base64Line(64)}\n${base64Line(64)}\n${base64Line(10)}`, true],
    ['MIME lines, CRLF, after prose', `some prose first\n${base64Line(76)}\r\n${base64Line(20)}`, true],
    ['a line of 47 base64 characters', `${base64Line(47)}\n${base64Line(47)}`, false],
    ['base64 then a break and nothing more', `${base64Line(64)}\n`, false],
    ['base64 then a break and a space', `${base64Line(64)}\n ${base64Line(64)}`, false],
    ['pretty-printed JSON', JSON.stringify({ a: [1, 2, 3], b: { c: 'words and words' } }, null, 2), false],
  ])('sees a raw line break between lines of base64 in bytes: %s', (_name, text, holds) => {
    expect(holdsWrappedLineBytes(Buffer.from(text))).toBe(holds);
  });

  it('masks exactly the form across the breaks: no character of it left on either side of a break', () => {
    const encoded = wrapped(`Authorization: Bearer ${'x'.repeat(18)}${SENTINEL_KEY} and the rest of it here`, 64, '\n');
    const [, second, third] = encoded.split('\n');
    // The key's base64 form begins in the first line after "eHNr" (the "xsk" of "xxsk-") and ends
    // before the second line's last "YzEgYW5k" ("c1 and").
    const before = encoded.slice(0, encoded.indexOf('eHNrLWFp') + 4);
    const after = `YzEgYW5k\n${third}`;
    expect(second?.endsWith('YzEgYW5k')).toBe(true);
    expect(masker.maskText(encoded)).toBe(`${before}${REDACTED}${after}`);
    const maskedBytes = masker.maskBytes(Buffer.from(encoded)).toString('latin1');
    expect(maskedBytes.length).toBe(encoded.length);
    expect(maskedBytes.startsWith(before)).toBe(true);
    expect(maskedBytes.endsWith(after)).toBe(true);
    expect(maskedBytes.slice(before.length, -after.length)).toMatch(/^\[redacted\]\**$/);
  });

  it('finds the form at every place in the lines, beside a certificate that only looks wrapped', () => {
    const certificate = wrapped('certificate bytes '.repeat(20), 64, '\n');
    for (const [width, lineBreak] of [
      [48, '\n'],
      [64, '\\n'],
      [76, '\r\n'],
      [76, '\\r\\n'],
    ] as const) {
      for (let offset = 0; offset < 60; offset += 1) {
        const encoded = wrapped(`${'y'.repeat(offset)}${SENTINEL_KEY} after`, width, lineBreak);
        const text = `${certificate}\nsome prose\n${encoded}`;
        expect(masker.holdsForm(text), `width ${width}, offset ${offset}`).toBe(true);
        expect(decodedBase64(masker.maskText(text))).not.toContain(SENTINEL_KEY.slice(3, 30));
      }
    }
    expect(masker.holdsForm(`${certificate}\n${certificate}`)).toBe(false);
  });

  it('leaves line breaks in plain text alone: prose and code hold no form across them', () => {
    const text =
      '{"m":"a line\\nand another\\r\\nconst value = 1;\\nsee https://example.com/docs/reference/configurationFileFormat\\nreturn"}';
    expect(masker.holdsForm(text)).toBe(false);
    expect(masker.maskText(text)).toBe(text);
  });
});
