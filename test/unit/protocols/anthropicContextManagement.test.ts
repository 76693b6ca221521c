import { describe, expect, it } from 'vitest';
import { base, chatBodyOf } from './anthropicRequestHelpers.ts';

/**
 * Context editing runs inside Anthropic's API before the prompt reaches the model (its context-editing
 * page: platform.claude.com/docs/en/build-with-claude/context-editing): clear_thinking_20251015 with
 * `keep: "all"` keeps every thinking block, clear_tool_uses_20250919 clears old tool results past its
 * trigger, compact_20260112 summarises the conversation. Claude Code 2.1.197 sends
 * `{edits: [{type: "clear_thinking_20251015", keep: "all"}]}` on every request with thinking (captured).
 */
describe('anthropicToChatRequest: context_management', () => {
  const messages = [{ role: 'user', content: 'Hi' }];

  it.each<[string, unknown]>([
    ["Claude Code's clear_thinking_20251015 keeping all thinking", { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] }],
    [
      'clear_thinking_20251015 keeping all thinking turns as an object',
      { edits: [{ type: 'clear_thinking_20251015', keep: { type: 'all' } }] },
    ],
    ['no edits', { edits: [] }],
    ['an empty object', {}],
  ])('drops %s silently: it changes nothing', (_case, contextManagement) => {
    const result = chatBodyOf({ ...base, messages, context_management: contextManagement });
    expect(result.chatBody).not.toHaveProperty('context_management');
    expect(result.notes).toEqual([]);
  });

  it.each<[string, Record<string, unknown>, string]>([
    [
      'thinking kept for fewer turns',
      { type: 'clear_thinking_20251015', keep: { type: 'thinking_turns', value: 1 } },
      'dropped context_management edit clear_thinking_20251015: thinking of earlier turns was not cleared',
    ],
    [
      'thinking kept by default (the last turn only)',
      { type: 'clear_thinking_20251015' },
      'dropped context_management edit clear_thinking_20251015: thinking of earlier turns was not cleared',
    ],
    [
      'tool results cleared past a trigger',
      { type: 'clear_tool_uses_20250919', trigger: { type: 'input_tokens', value: 30_000 } },
      'dropped context_management edit clear_tool_uses_20250919: old tool results were not cleared',
    ],
    [
      'server-side compaction',
      { type: 'compact_20260112' },
      'dropped context_management edit compact_20260112: the conversation was not compacted',
    ],
    [
      'an edit of a later type',
      { type: 'clear_everything_20990101' },
      'dropped context_management edit clear_everything_20990101: not applied',
    ],
    ["an edit named like an object's own property", { type: 'constructor' }, 'dropped context_management edit constructor: not applied'],
  ])('drops an edit that would change the context with a note saying what was not done: %s', (_case, edit, note) => {
    const result = chatBodyOf({
      ...base,
      messages,
      context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }, edit] },
    });
    expect(result.chatBody).not.toHaveProperty('context_management');
    expect(result.notes).toEqual([note]);
  });
});
