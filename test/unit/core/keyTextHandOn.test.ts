import { describe, expect, it } from 'vitest';
import { KeyMasker } from '../../../proxy/core/keyMasker.ts';
import { knownSecretForms, REDACTED } from '../../../proxy/core/redact.ts';
import { findSentinel, SENTINEL_KEY } from '../../support/sentinel.ts';

/**
 * A field's stream hands on what it holds when its choice goes on to another field (the answer's
 * text after the thinking), and reads on as if it still held it: the text is whole and in order,
 * and a key the field goes on to spell after the pause is still masked in what a client joins.
 */
const masker = KeyMasker.for(SENTINEL_KEY);
const percentEvery = [...SENTINEL_KEY].map((char) => `%${char.charCodeAt(0).toString(16)}`).join('');
const base64Form = knownSecretForms([SENTINEL_KEY]).find(
  (form) => form !== SENTINEL_KEY && /^[A-Za-z0-9+/]+$/.test(form) && form.length > 40,
);

/** Each cut of the text into two pieces with a pause between them: what was passed on by the pause, and all of it joined. */
function pausedAtEveryCut(text: string): Array<{ cut: number; beforePause: string; joined: string }> {
  const runs: Array<{ cut: number; beforePause: string; joined: string }> = [];
  for (let cut = 1; cut < text.length; cut += 1) {
    const stream = masker.textStream();
    const beforePause = stream.push(text.slice(0, cut)) + stream.handOn();
    expect(stream.holding).toBe(false);
    runs.push({ cut, beforePause, joined: beforePause + stream.push(text.slice(cut)) + stream.end() });
  }
  return runs;
}

describe('a field paused and gone on', () => {
  it.each([
    ['words ending with the start of the key', 'Name two keys, then s'],
    ['escapes that spell no key', 'caf\\u00e9 100% &amp; sk\\u002dx %2 &#4 s'],
    ['a short start of the key', 'the prefix sk-airlock-SENT is not the key'],
  ])('%s: everything before the pause is passed on by it, the text whole and in order', (_name, text) => {
    for (const { cut, beforePause, joined } of pausedAtEveryCut(text)) {
      expect(beforePause, `cut at ${cut}`).toBe(text.slice(0, cut));
      expect(joined, `cut at ${cut}`).toBe(text);
    }
  });

  it.each([
    ['as written', SENTINEL_KEY],
    ['its dashes percent-encoded', SENTINEL_KEY.replaceAll('-', '%2D')],
    ['every character percent-encoded', percentEvery],
    ['its dashes as \\u002d', SENTINEL_KEY.replaceAll('-', '\\u002d')],
    ['its dashes as HTML references', SENTINEL_KEY.replaceAll('-', '&#45;')],
    ['its first `a` as an HTML reference without `;`', SENTINEL_KEY.replace('a', '&#97')],
    ['in base64', base64Form ?? ''],
  ])('a key %s, paused anywhere: what the client joins never spells it', (_name, form) => {
    expect(form.length).toBeGreaterThan(40);
    const text = `print ${form} now`;
    for (const { cut, joined } of pausedAtEveryCut(text)) {
      expect(findSentinel(joined), `cut at ${cut}: ${joined}`).toBeNull();
      expect(joined, `cut at ${cut}`).toContain(REDACTED);
      expect(joined.endsWith(' now'), `cut at ${cut}: ${joined}`).toBe(true);
    }
  });

  it('paused after every piece of three characters: the joined text never spells the key', () => {
    for (const form of [SENTINEL_KEY, percentEvery, SENTINEL_KEY.replaceAll('-', '&#x2d;')]) {
      const text = `print ${form} now`;
      for (let offset = 0; offset < 3; offset += 1) {
        const stream = masker.textStream();
        let joined = stream.push(text.slice(0, offset));
        for (let at = offset; at < text.length; at += 3) joined += stream.push(text.slice(at, at + 3)) + stream.handOn();
        joined += stream.end();
        expect(findSentinel(joined), joined).toBeNull();
      }
    }
  });
});
