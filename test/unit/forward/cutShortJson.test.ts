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

describe('isCutShortJson', () => {
  it('is true of every prefix of a JSON object or array, white space around it or not', () => {
    for (let end = 1; end < ANSWER.length; end += 1) expect(isCutShortJson(ANSWER.slice(0, end)), ANSWER.slice(0, end)).toBe(true);
    expect(isCutShortJson('  \n[{"a": [1, 2')).toBe(true);
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
  ])('is false of %s', (_name, text) => {
    expect(isCutShortJson(text)).toBe(false);
  });
});
