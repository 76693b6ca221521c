import { describe, expect, it } from 'vitest';
import { jsonParseFailure } from '../../../proxy/core/jsonSyntaxError.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';

describe('jsonParseFailure', () => {
  it('says what broke and where, quoting nothing of the text', () => {
    const text = `{"model":"m","stop":["${SENTINEL_KEY}",x]}`;
    let error: unknown;
    try {
      JSON.parse(text);
    } catch (caught) {
      error = caught;
    }
    // V8's own words quote the ten characters before the break: the key's end.
    expect(String(error)).toContain(SENTINEL_KEY.slice(-8));
    expect(jsonParseFailure(text, error)).toBe('invalid symbol at line 1, column 77');
  });

  it('keeps V8’s words without their quote where the second reading finds nothing wrong', () => {
    const quoted = new SyntaxError(`Unexpected token 'x', ..."${SENTINEL_KEY.slice(-8)}",x]}" is not valid JSON`);
    expect(jsonParseFailure('{"a":1}', quoted)).toBe("Unexpected token 'x'");
    const positioned = new SyntaxError('Bad control character in string literal in JSON at position 7 (line 1 column 8)');
    expect(jsonParseFailure('{"a":1}', positioned)).toBe(positioned.message);
  });
});
