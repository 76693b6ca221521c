import { describe, expect, it } from 'vitest';
import { knownSecretForms, REDACTED, redactSecrets, redactsNone, replaceSecretForms } from '../../../proxy/core/redact.ts';
import { SENTINEL_KEY, findSentinel, sentinelForms } from '../../support/sentinel.ts';

const base64 = (text: string) => Buffer.from(text).toString('base64');
const base64Url = (text: string) => Buffer.from(text).toString('base64url');

describe('redactSecrets with the known key', () => {
  it.each([
    ['raw', `invalid key ${SENTINEL_KEY} given`],
    ['URL-encoded', `url=https://x/?k=${encodeURIComponent(SENTINEL_KEY)}`],
    ['Bearer header', `Authorization: Bearer ${SENTINEL_KEY}`],
    ['base64', `token ${base64(SENTINEL_KEY)}`],
    ['base64 at offset 1', `basic ${base64(`u${SENTINEL_KEY}`)}`],
    ['base64 at offset 2', `basic ${base64(`us:${SENTINEL_KEY}`)}`],
    ['base64url at offset 1', `t=${base64Url(`\u00ff${SENTINEL_KEY}`)}`],
    ['every sentinel form at once', sentinelForms().join(' | ')],
  ])('removes the %s form', (_label, text) => {
    const redacted = redactSecrets(text, [SENTINEL_KEY]);
    expect(findSentinel(redacted)).toBeNull();
    expect(redacted).toContain(REDACTED);
  });

  it.each([
    ['special characters, URL-encoded', 'my key/with+odd=chars&more!', encodeURIComponent('my key/with+odd=chars&more!')],
    ['special characters, lowercase escapes', 'my key/with+odd=chars&more!', 'my%20key%2fwith%2bodd%3dchars%26more!'],
    ['a short secret, raw', 'abc123', 'abc123'],
    // PHP's json_encode writes `/` as `\/` unless told not to: a key echoed in such an error body.
    ['slashes escaped as JSON may write them', 'AKIA/abc+def/ghi', 'AKIA\\/abc+def\\/ghi'],
  ])('removes a known secret with %s', (_label, secret, leak) => {
    const redacted = redactSecrets(`before ${leak} after`, [secret]);
    expect(redacted).toBe(`before ${REDACTED} after`);
  });
});

describe('redactSecrets with changing secret lists', () => {
  it('masks the secrets of the list it is given, not those of an earlier call', () => {
    const text = 'old=first-secret-value new=second-secret-value';
    expect(redactSecrets(text, ['first-secret-value'])).toBe(`old=${REDACTED} new=second-secret-value`);
    expect(redactSecrets(text, ['second-secret-value'])).toBe(`old=first-secret-value new=${REDACTED}`);
    expect(redactSecrets(text, ['first-secret-value', 'second-secret-value'])).toBe(`old=${REDACTED} new=${REDACTED}`);
  });

  it('masks the current entries of a list that was changed in place since the last call', () => {
    const text = 'old=first-secret-value new=second-secret-value';
    const secrets = ['first-secret-value'];
    expect(redactSecrets(text, secrets)).toBe(`old=${REDACTED} new=second-secret-value`);
    secrets[0] = 'second-secret-value';
    expect(redactSecrets(text, secrets)).toBe(`old=first-secret-value new=${REDACTED}`);
    secrets.push('first-secret-value');
    expect(redactSecrets(text, secrets)).toBe(`old=${REDACTED} new=${REDACTED}`);
  });

  it.each([
    ['one secret holding a separator', ['alpha\0beta'], 'alpha beta', 'alpha beta'],
    ['two secrets that would join to the same text', ['alpha', 'beta'], 'alpha beta', `${REDACTED} ${REDACTED}`],
  ])('tells apart %s', (_label, secrets, text, expected) => {
    redactSecrets(text, ['alpha\0beta']);
    expect(redactSecrets(text, secrets)).toBe(expected);
  });
});

describe('redactSecrets finds a short known secret that no shape would catch', () => {
  const secret = 'hunter2-is-secret!';
  it.each([
    ['base64', base64(secret)],
    ['base64 at offset 1', base64(`:${secret}`)],
    ['base64 at offset 2', base64(`u:${secret}`)],
    ['base64url at offset 1', base64Url(`\u00ff${secret}`)],
  ])('in %s', (_label, encoded) => {
    const middle = encoded.slice(4, -4);
    expect(redactSecrets(`auth ${encoded}`)).toContain(middle);
    expect(redactSecrets(`auth ${encoded}`, [secret])).not.toContain(middle);
  });
});

describe('redactSecrets by shape, with no known secrets', () => {
  it.each([
    ['an sk- key', 'Incorrect API key provided: sk-proj-abcDEF1234567890xyz.', 'Incorrect API key provided: [redacted].'],
    ['a Bearer token', 'got Bearer abc.def-ghi_jkl', 'got Bearer [redacted]'],
    ['a Bearer token in capitals', 'got BEARER abc.def-ghi_jkl', 'got BEARER [redacted]'],
    ['a Bearer token after a tab', 'authorization:\tbearer abcdefgh', 'authorization:\tbearer [redacted]'],
    ['an upper-case hex run', `id ${'A1B2C3D4'.repeat(4)} end`, 'id [redacted] end'],
    ['a random run after a path word, with the word', 'see path/aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3 end', 'see [redacted] end'],
    ['a random run after =, without the =', 'key=aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3== end', 'key=[redacted] end'],
    ['two random runs split by padding', 'aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3==zY8xW6vU4tS2rQ0pO8nM6lK4jI2hG0fE', '[redacted][redacted]'],
    [
      'a Bearer token, an sk- key and a hex run together',
      `Bearer abcdefgh, sk-${'x'.repeat(12)}, ${'f'.repeat(32)}`,
      'Bearer [redacted], [redacted], [redacted]',
    ],
    ['a hex run', `id ${'a1b2c3d4'.repeat(4)} end`, 'id [redacted] end'],
    ['a JWT-like base64 run', 'token eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9 end', 'token [redacted] end'],
    ['the sentinel', `bad ${SENTINEL_KEY}`, 'bad [redacted]'],
    ['the shortest sk- key, alone', `sk-${'a1'.repeat(6)}`, '[redacted]'],
    ['a Bearer token of 8 characters, the rest of the text short words', 'Bearer abcdefgh', 'Bearer [redacted]'],
    ['a random run of exactly 32 characters', 'k aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY end', 'k [redacted] end'],
    ['a random run with a time stamp beside it', 'k aB3dE5fG7hJ9kL1mN3pQ-20261127T140700Z end', 'k [redacted] end'],
  ])('removes %s', (_label, text, expected) => {
    expect(redactSecrets(text)).toBe(expected);
  });

  it.each([
    ['the base64 sentinel', `x ${base64(SENTINEL_KEY)}`],
    ['the base64 sentinel at offset 2', `x ${base64(`ab${SENTINEL_KEY}`)}`],
  ])('removes %s', (_label, text) => {
    expect(findSentinel(redactSecrets(text))).toBeNull();
  });

  it.each([
    ['a long model id', 'The model deepseek-ai/DeepSeek-R1-Distill-Qwen-32B does not exist'],
    ['a model id with a long one-case word', 'The model togethercomputer/RedPajama-INCITE-7B-Instruct does not exist'],
    ['a model id with long capitalised words', 'The model FreedomIntelligence/HuatuoGPT-o1-8B does not exist'],
    ['a model id with capitalised words after a run', 'The model hf.co/MarinaraSpaghetti/NemoMix-Unleashed-12B-GGUF does not exist'],
    ['a URL path', 'No route for /api/v1/chat/completions/stream-events-extended'],
    ['a Bearer word in prose', 'Invalid Bearer token format'],
    ['a short hex id', 'request 3f2a9c1b failed'],
    ['a snake_case code', 'context_length_exceeded_for_this_particular_model'],
    ['an upper-case SK- name', 'vendor SK-HYNIX-SEMICONDUCTOR-GROUP'],
    ['a hex run inside a longer word', `x${'a1b2c3d4'.repeat(4)}yz`],
    ['a chat completion id', '{"id":"chatcmpl-sim000001","object":"chat.completion"}'],
    ['a random-looking run of 31 characters', 'k aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1x end'],
    // A random 32-digit hex key has a letter in all but 3 in 10 million draws; a number is no key.
    ['a long number', 'pi is 3.14159265358979323846264338327950288419716939937510 and 2^128 is 340282366920938463463374607431768211456'],
    ['a run of digits in a stream', '0123456789'.repeat(20)],
  ])('keeps %s', (_label, text) => {
    expect(redactSecrets(text)).toBe(text);
  });

  // A time stamp like those in the names of files Airlock moves aside is no reason to pass a token:
  // the notice board keeps those names readable itself (noticeBoard.test.ts).
  it.each([
    ['a key with a time stamp between dashes and underscores', 'key AIzaSyA1b2C3d4E-20261127T140700Z_x9Y8z7 end', 'key [redacted] end'],
    [
      'an AWS-secret-like run with a time stamp between slashes',
      'secret wJalrXUtnFEM/20261127T140700Z/bPxRfiCY end',
      'secret [redacted] end',
    ],
    [
      'a JWT whose signature holds a time stamp',
      'jwt eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dBjftJeZ4CVP-20261127T140700Z_mpAhZvJ9 end',
      'jwt [redacted].eyJzdWIiOiIxMjM0NTY3ODkwIn0.[redacted] end',
    ],
  ])('removes %s', (_label, text, expected) => {
    expect(redactSecrets(text)).toBe(expected);
  });
});

describe('replaceSecretForms: the one loop every masker uses', () => {
  const secret = 'pass/word+0123456789';
  const forms = knownSecretForms([secret]);

  it.each([
    ['a raw secret', `id=${secret};`, `id=${REDACTED};`],
    ['a URL-encoded secret', `q=${encodeURIComponent(secret)}&x`, `q=${REDACTED}&x`],
    ['every occurrence', `${secret} ${secret}`, `${REDACTED} ${REDACTED}`],
    ['no form', 'nothing here', 'nothing here'],
  ])('%s', (_case, text, expected) => {
    expect(replaceSecretForms(text, forms)).toBe(expected);
  });

  it('replaces each form by what the caller makes of it (a mask of its own length)', () => {
    const text = `<${secret}>`;
    expect(replaceSecretForms(text, forms, (form) => '*'.repeat(form.length))).toBe(`<${'*'.repeat(secret.length)}>`);
  });
});

describe('redactsNone', () => {
  const hex = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
  const randomRun = 'Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LmNb';
  // Each list has one text that redactSecrets changes, at a text's start, end or whole: the joined check must see it.
  it.each<[string, string[]]>([
    ['the known key, whole', ['/v1/chat/completions', SENTINEL_KEY, 'gpt-4o']],
    ['the known key, base64, at the end', ['ok', `token ${base64(SENTINEL_KEY)}`]],
    ['an sk- key at the start', ['fine', 'sk-abcdefghijklmnop rest']],
    ['a hex run at the end', ['fine', `id ${hex}`]],
    ['a hex run at the start', [`${hex} id`, 'fine']],
    ['a Bearer token', ['Authorization: Bearer abcdefghijkl', 'fine']],
    ['a random run at the end', ['fine', `x=${randomRun}`]],
    ['a random run at the start of the last text', ['fine', `${randomRun} x`]],
  ])('is false when one text holds %s', (_label, texts) => {
    expect(texts.some((text) => redactSecrets(text, [SENTINEL_KEY]) !== text)).toBe(true);
    expect(redactsNone(texts, [SENTINEL_KEY])).toBe(false);
  });

  it.each<[string, string[]]>([
    ['paths, models and a summary', ['/v1/chat/completions', 'gpt-4o-mini', 'deepseek-ai/DeepSeek-R1-Distill-Qwen-32B', 'Say hello.']],
    ['no texts', []],
    ['empty texts', ['', '']],
  ])('is true for %s', (_label, texts) => {
    expect(redactsNone(texts, [SENTINEL_KEY])).toBe(true);
  });

  it('may be false for texts each clean alone (a word ending one text, a token starting the next): the caller then masks each', () => {
    const texts = ['ends with Bearer', 'abcdefghijkl'];
    expect(texts.every((text) => redactSecrets(text, [SENTINEL_KEY]) === text)).toBe(true);
    expect(redactsNone(texts, [SENTINEL_KEY])).toBe(false);
  });
});
