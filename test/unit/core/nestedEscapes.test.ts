import { describe, expect, it } from 'vitest';
import { KeyMasker } from '../../../proxy/core/keyMasker.ts';
import { maskNestedEscapes } from '../../../proxy/core/nestedEscapes.ts';
import { findSentinel, SENTINEL_KEY } from '../../support/sentinel.ts';

const masker = KeyMasker.for(SENTINEL_KEY);
/** The key with its dashes as JSON escapes, as a string's own text holds them once parsed. */
const KEY_ESCAPED = SENTINEL_KEY.replaceAll('-', '\\u002d');

/** The answer as a gateway writes it, parsed as the relay parses it. */
function read(answer: unknown): { text: string; answer: Record<string, unknown> } {
  const text = JSON.stringify(answer);
  return { text, answer: JSON.parse(text) as Record<string, unknown> };
}

describe('maskNestedEscapes', () => {
  it.each([
    ['tool arguments', { choices: [{ message: { tool_calls: [{ function: { arguments: `{"path":"${KEY_ESCAPED}"}` } }] } }] }],
    ['an output item of a Responses answer', { output: [{ type: 'function_call', arguments: `{"cmd":"echo ${KEY_ESCAPED}"}` }] }],
    ['a string at the top level', { note: KEY_ESCAPED }],
  ])('masks a key escaped inside a string: %s', (_case, written) => {
    const { text, answer } = read(written);
    expect(maskNestedEscapes(text, answer, masker)).toBe(true);
    const strings = JSON.stringify(answer).match(/"(?:[^"\\]|\\.)*"/g) ?? [];
    // Each string as its reader parses it: no key once its own escapes are undone too.
    for (const string of strings) expect(findSentinel(JSON.parse(string) as string)).toBeNull();
  });

  it.each([
    [
      'no escaped backslash in the text',
      { choices: [{ message: { content: 'hello', tool_calls: [{ function: { arguments: '{"path":"a.txt"}' } }] } }] },
    ],
    [
      'escapes that spell no key',
      { choices: [{ message: { tool_calls: [{ function: { arguments: '{"text":"caf\\u00e9 \\u002d ok"}' } }] } }] },
    ],
  ])('changes nothing without such a key: %s', (_case, written) => {
    const { text, answer } = read(written);
    const before = JSON.stringify(answer);
    expect(maskNestedEscapes(text, answer, masker)).toBe(false);
    expect(JSON.stringify(answer)).toBe(before);
  });

  it('leaves an answer nested past any model answer as it is: written anew, it would overflow the stack', () => {
    const depth = 200_000;
    const text = `{"note":${JSON.stringify(KEY_ESCAPED)},"deep":${'['.repeat(depth)}${']'.repeat(depth)}}`;
    const answer = JSON.parse(text) as Record<string, unknown>;
    expect(maskNestedEscapes(text, answer, masker)).toBe(false);
    expect(answer.note).toBe(KEY_ESCAPED);
  });

  it('masks a string a hundred levels down', () => {
    let nested: unknown = KEY_ESCAPED;
    for (let level = 0; level < 100; level += 1) nested = [nested];
    const { text, answer } = read({ nested });
    expect(maskNestedEscapes(text, answer, masker)).toBe(true);
    let innermost: unknown = answer.nested;
    while (Array.isArray(innermost)) innermost = innermost[0];
    expect(findSentinel(innermost as string)).toBeNull();
  });
});
