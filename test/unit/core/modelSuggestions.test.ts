import { describe, expect, it } from 'vitest';
import { closestModelIds } from '../../../proxy/forward/modelSuggestions.ts';

const CATALOG = [
  'gpt-4o',
  'gpt-4o-mini',
  'gpt-4.1',
  'claude-sonnet-4-5',
  'claude-opus-4-1',
  'deepseek-chat',
  'deepseek-reasoner',
  'qwen3-coder-plus',
  'text-embedding-3-small',
];

describe('closestModelIds', () => {
  it.each<[string, string, string[], number | undefined, string[]]>([
    ['exact id with other case first', 'gpt-4O', ['gpt-4o-mini', 'GPT-4o'], undefined, ['GPT-4o', 'gpt-4o-mini']],
    ['separators ignored', 'Claude Sonnet 4.5', CATALOG, 1, ['claude-sonnet-4-5']],
    ['a typo', 'deepseek-chta', CATALOG, 2, ['deepseek-chat', 'deepseek-reasoner']],
    ['exact, then substring, then edits', 'gpt-4o', CATALOG, 3, ['gpt-4o', 'gpt-4o-mini', 'gpt-4.1']],
    ['substring beats a closer edit', 'gpt-4o', ['gpt-4a', 'gpt-4o-mini-2024-07-18'], 3, ['gpt-4o-mini-2024-07-18', 'gpt-4a']],
    ['ties in id order', 'gpt-4', ['gpt-4o', 'gpt-4.1'], 3, ['gpt-4.1', 'gpt-4o']],
    ['nothing related', 'stable-diffusion-xl-base', CATALOG, 3, []],
    ['empty request', '  ', CATALOG, 3, []],
    ['duplicates listed once', 'gpt4o', ['gpt-4o', 'gpt-4o', 'gpt-4o-mini'], 3, ['gpt-4o', 'gpt-4o-mini']],
    ['limit zero', 'gpt-4o', CATALOG, 0, []],
  ])('%s', (_label, requested, available, limit, expected) => {
    expect(closestModelIds(requested, available, limit)).toEqual(expected);
  });

  it.each([
    ['gpt4o', 'gpt-4o'],
    ['qwen3-coder', 'qwen3-coder-plus'],
    ['deepseek/deepseek-reasoner', 'deepseek-reasoner'],
    ['text-embedding-3-smal', 'text-embedding-3-small'],
  ])('%s suggests %s first', (requested, expected) => {
    expect(closestModelIds(requested, CATALOG)[0]).toBe(expected);
  });
});
