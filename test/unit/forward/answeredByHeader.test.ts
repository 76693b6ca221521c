import { validateHeaderValue } from 'node:http';
import { describe, expect, it } from 'vitest';
import { answeredByHeader, type ExchangeStep } from '../../../proxy/forward/fallbackRoute.ts';

const step = (profileId: string, upstreamModel: string | null): ExchangeStep =>
  ({ plan: { upstreamModel }, target: { profile: { id: profileId } } }) as unknown as ExchangeStep;

describe('answeredByHeader', () => {
  // Names that need no encoding take the fast path; each other row would come out raw if it took it.
  it.each([
    ['main', 'deepseek-chat', 'main/deepseek-chat'],
    ['main', null, 'main'],
    ['backup', 'qwen/qwen3-coder:free', 'backup/qwen/qwen3-coder:free'],
    ['main', '!"#$&~', 'main/!"#$&~'],
    ['main', 'qwen plus', 'main/qwen%20plus'],
    ['main', '100%', 'main/100%25'],
    ['main', '%20', 'main/%2520'],
    ['main', 'modèle', 'main/mod%C3%A8le'],
    ['main', '模型', 'main/%E6%A8%A1%E5%9E%8B'],
    ['main', 'a\tb', 'main/a%09b'],
    ['main', 'del\x7f', 'main/del%7F'],
    ['main', 'new\r\nline', 'main/new%0D%0Aline'],
    // Outside the Basic Multilingual Plane: one character in two UTF-16 units, encoded whole.
    ['main', 'fast🚀', 'main/fast%F0%9F%9A%80'],
    // A lone surrogate (JSON allows \ud800) is not text: it reads as U+FFFD rather than failing the request.
    ['main', 'bad\ud800', 'main/bad%EF%BF%BD'],
  ])('profile %j with model %j says %j', (profileId, model, expected) => {
    const header = answeredByHeader(step(profileId, model));
    expect(header).toBe(expected);
    expect(() => validateHeaderValue('x-airlock-answered-by', header)).not.toThrow();
  });
});
