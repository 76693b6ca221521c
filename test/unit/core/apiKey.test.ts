import { describe, expect, it } from 'vitest';
import { cleanApiKey, MAX_KEY_LENGTH } from '../../../proxy/core/apiKey.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';

const KEY = SENTINEL_KEY;

describe('cleanApiKey', () => {
  it('takes a key of the longest length taken, a JWT-sized one', () => {
    const longest = `ey${'J'.repeat(MAX_KEY_LENGTH - 2)}`;
    expect(cleanApiKey(longest)).toEqual({ ok: true, key: longest, notes: [] });
    expect(cleanApiKey(`${longest}J`).ok).toBe(false);
  });

  it.each([
    ['a clean key', KEY, []],
    ['trailing newline', `${KEY}\n`, ['removed surrounding whitespace or line breaks']],
    ['surrounding spaces and CRLF', `  ${KEY}\r\n`, ['removed surrounding whitespace or line breaks']],
    ['double quotes', `"${KEY}"`, ['removed surrounding quotation marks']],
    ['single quotes', `'${KEY}'`, ['removed surrounding quotation marks']],
    ['smart quotes', `\u201C${KEY}\u201D`, ['removed surrounding quotation marks']],
    ['backticks', `\`${KEY}\``, ['removed surrounding quotation marks']],
    ['Bearer prefix', `Bearer ${KEY}`, ["removed a leading 'Bearer '"]],
    ['lowercase bearer', `bearer ${KEY}`, ["removed a leading 'Bearer '"]],
    ['doubled Bearer', `Bearer Bearer ${KEY}`, ["removed a leading 'Bearer '"]],
    ['Bearer without a space', `Bearer${KEY}`, ["removed a leading 'Bearer '"]],
    ['Bearer with a tab', `Bearer\t${KEY}`, ["removed a leading 'Bearer '"]],
    [
      'a whole header line',
      `Authorization: Bearer ${KEY}`,
      ["removed a leading header name ('Authorization:')", "removed a leading 'Bearer '"],
    ],
    ['x-api-key header line', `x-api-key: ${KEY}`, ["removed a leading header name ('Authorization:')"]],
    ['an env assignment', `export OPENAI_API_KEY=${KEY}`, ["removed a leading 'NAME=' assignment"]],
    [
      'quotes inside Bearer inside whitespace',
      ` "Bearer '${KEY}'" \n`,
      ['removed surrounding whitespace or line breaks', 'removed surrounding quotation marks', "removed a leading 'Bearer '"],
    ],
  ])('%s', (_label, raw, notes) => {
    const result = cleanApiKey(raw);
    expect(result).toEqual({ ok: true, key: KEY, notes });
  });

  it.each([
    ['empty', '', /empty/],
    ['only whitespace', ' \n\t', /empty/],
    ['only quotes and Bearer', '"Bearer "', /empty/],
    ['an inner space', `${KEY.slice(0, 10)} ${KEY.slice(10)}`, /space or line break at character 11/],
    ['an inner newline', `${KEY.slice(0, 5)}\n${KEY.slice(5)}`, /space or line break at character 6/],
    ['a control character', `${KEY.slice(0, 3)}\u0007${KEY.slice(3)}`, /control character at character 4/],
    ['a non-ASCII look-alike', `${KEY.slice(0, 2)}\u0455${KEY.slice(2)}`, /non-ASCII character at character 3/],
    ['a zero-width space', `${KEY}\u200B${KEY}`, /non-ASCII/],
    ['the base URL, the two fields swapped', ' https://api.x.hk/v1\n', /an address, not a key: it goes in the base URL/],
    // Copied from a tool's config connect wrote, or the window's sign-in: every request was a 401, the token sent away.
    ['an Airlock client token', `ANTHROPIC_AUTH_TOKEN=alk_${KEY.slice(3)}`, /Airlock's own tokens \(alk_…\).*gateway console/],
    ['an Airlock control token', `"alkc_${KEY.slice(3)}"`, /Airlock's own tokens \(alkc_…\)/],
    // A wrong paste (a log, a file) was saved and sent with every request; past nginx's 8 KB header line no gateway takes it.
    ['a 10 KB paste', `sk-${'a1B2'.repeat(2500)}`, /is 10003 characters long, and a gateway key is at most 4096/],
    ['a megabyte of it', ` ${KEY.repeat(20_000)} `, /is 1040000 characters long, and a gateway key is at most 4096/],
  ])('refuses %s without echoing the key', (_label, raw, reason) => {
    const result = cleanApiKey(raw);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toMatch(reason);
    expect(JSON.stringify(result)).not.toContain(KEY.slice(3, 20));
  });
});
