import { describe, expect, it } from 'vitest';
import { lineBreakingCharacter } from '../../../proxy/contracts/displayText.ts';

describe('lineBreakingCharacter', () => {
  it.each([
    ['gpt-4o\u2028mini', 'U+2028 (a line separator) at character 7'],
    ['\u2029gpt', 'U+2029 (a paragraph separator) at character 1'],
    ['gpt\n', 'U+000A (a line break) at character 4'],
    ['a\tb', 'U+0009 (a tab) at character 2'],
    ['a\u0007b', 'U+0007 (a control character) at character 2'],
    ['a\u007fb', 'U+007F (a control character) at character 2'],
    ['a\u009bb', 'U+009B (a control character) at character 2'],
    ['a\u001b[2Jb', 'U+001B (an escape character) at character 2'],
  ])('names the first in %j', (text, named) => {
    expect(lineBreakingCharacter(text)).toBe(named);
  });

  it.each(['gpt-4o-mini', 'Qwen/Qwen2.5-Coder-32B', 'anthropic.claude-3-5-sonnet-20241022-v2:0', '通义千问 max', 'work 🚀', 'a b'])(
    'finds none in %j',
    (text) => {
      expect(lineBreakingCharacter(text)).toBeNull();
    },
  );
});
