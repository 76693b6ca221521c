import { describe, expect, it } from 'vitest';
import { isCutShortJson } from '../../../proxy/forward/cutShortJson.ts';

/**
 * A body that is a JSON text cut short (a relay ended it in order when its own copy broke) against
 * one that is no JSON at all or JSON gone wrong elsewhere: only the first is a broken-off answer.
 */
const ANSWER = JSON.stringify(
  {
    id: 'chatcmpl-1',
    choices: [{ index: 0, message: { role: 'assistant', content: 'Say "hi" \u00e9\n', tool_calls: [] }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 7, completion_tokens: -1.5e3, cached: true, other: false, none: null },
  },
  null,
  1,
);

// Escapes of every kind JSON.stringify writes, and numbers in each form.
const ESCAPED = JSON.stringify([
  { 'k\u0001"': 'tab\t quote" slash\\ nul\u0000 \u2028', n: [0, -0.5, 1e21, 12.75e-8] },
  [],
  {},
  null,
  false,
]);

describe('isCutShortJson', () => {
  it('is true of every prefix of a JSON object or array, white space around it or not', () => {
    for (const whole of [ANSWER, ESCAPED]) {
      for (let end = 1; end < whole.length; end += 1) expect(isCutShortJson(whole.slice(0, end)), whole.slice(0, end)).toBe(true);
    }
    expect(isCutShortJson('  \n[{"a": [1, 2')).toBe(true);
  });

  it.each([
    ['inside a literal', '{"a": tru'],
    ['after a minus', '[-'],
    ['inside an exponent', '{"a": 1e+'],
    ['inside an escape', '{"a": "x\\u00'],
    ['inside a key', '{"a": 1, "b'],
    ['after a colon', '{"a":'],
    ['inside nested arrays', '[[[1, [2, [3'],
  ])('is true of a text cut %s', (_name, text) => {
    expect(isCutShortJson(text)).toBe(true);
  });

  it.each([
    ['a whole answer', ANSWER],
    ['a text', 'upstream maintenance, back soon'],
    ['an HTML page', '<html><body>Sign in to the Wi-Fi</body></html>'],
    ['a JSON string', '"oops'],
    ['a raw line break in a string', '{"a": "b\n"}'],
    ['no body', ''],
    ['a wrong token inside', '{"a": x, "b": 1'],
    ['a trailing comma then a close', '{"a": 1,}'],
    ['text after a whole object', '{"a": 1} and more'],
    ['a close too many', '{"a": 1}}'],
    ['a word that is no literal, at the end', '{"a": trux'],
    ['a number gone wrong, then cut', '{"a": 1.}, "b": 2'],
    ['an unknown escape, then cut', '{"a": "x\\q'],
    ['a raw tab in a string, then cut', '{"a": "x\ty'],
    ['a comment', '{"a": 1 /* note */'],
  ])('is false of %s', (_name, text) => {
    expect(isCutShortJson(text)).toBe(false);
  });
});
