import { describe, expect, it } from 'vitest';
import { anthropicToChatRequest } from '../../../proxy/protocols/anthropic/request.ts';
import { base, chatBodyOf, options } from './anthropicRequestHelpers.ts';

/**
 * Anthropic's tool reference (platform.claude.com/docs/en/agents-and-tools/tool-use/tool-reference)
 * splits its tools into server tools, run inside Anthropic's API, and client tools, whose schema
 * Anthropic defines and the client runs: memory, bash, text editor and computer use. Their names are
 * fixed by type (the SDK's ToolBash20250124, ToolTextEditor20250728, BetaMemoryTool20250818,
 * BetaToolComputerUse20251124). A client tool goes to chat as a function of that name, so the model's
 * call comes back as a tool_use the client runs.
 */
type Functions = { type: string; function: { name: string; description?: string; parameters: Record<string, unknown> } }[];
const messages = [{ role: 'user', content: 'Go' }];

function offered(tool: Record<string, unknown>) {
  const result = chatBodyOf({ ...base, messages, tools: [tool] });
  const [fn, ...others] = result.chatBody['tools'] as Functions;
  expect(others).toEqual([]);
  return { fn: fn!.function, notes: result.notes };
}

const schemaOf = (fn: { parameters: Record<string, unknown> }) =>
  fn.parameters as { type: string; properties: Record<string, { enum?: string[] }>; required: string[] };

describe('anthropicToChatRequest: Anthropic-defined client tools', () => {
  // Text editor: insert's text is `new_str` in the Claude 3.x versions (the schema Anthropic's
  // computer-use demo gave, quoted in drivecore/mycoder#59) and `insert_text` from the Claude 4 ones
  // (the text editor page; anthropics/anthropic-sdk-python#1155: the model sends insert_text).
  // undo_edit is in the 3.x versions only (text editor page).
  // bash: `command`, unless `restart` (bash tool page), so neither is required.
  it.each<[string, string, string[], string[], string[]]>([
    ['bash_20241022', 'bash', [], ['command', 'restart'], []],
    ['bash_20250124', 'bash', [], ['command', 'restart'], []],
    [
      'text_editor_20241022',
      'str_replace_editor',
      ['view', 'create', 'str_replace', 'insert', 'undo_edit'],
      ['command', 'path', 'view_range', 'old_str', 'new_str', 'file_text', 'insert_line'],
      ['command', 'path'],
    ],
    [
      'text_editor_20250124',
      'str_replace_editor',
      ['view', 'create', 'str_replace', 'insert', 'undo_edit'],
      ['command', 'path', 'view_range', 'old_str', 'new_str', 'file_text', 'insert_line'],
      ['command', 'path'],
    ],
    [
      'text_editor_20250429',
      'str_replace_based_edit_tool',
      ['view', 'create', 'str_replace', 'insert'],
      ['command', 'path', 'view_range', 'old_str', 'new_str', 'file_text', 'insert_line', 'insert_text'],
      ['command', 'path'],
    ],
    [
      'text_editor_20250728',
      'str_replace_based_edit_tool',
      ['view', 'create', 'str_replace', 'insert'],
      ['command', 'path', 'view_range', 'old_str', 'new_str', 'file_text', 'insert_line', 'insert_text'],
      ['command', 'path'],
    ],
    [
      'memory_20250818',
      'memory',
      ['view', 'create', 'str_replace', 'insert', 'delete', 'rename'],
      ['command', 'path', 'view_range', 'file_text', 'old_str', 'new_str', 'insert_line', 'insert_text', 'old_path', 'new_path'],
      ['command'],
    ],
  ])('%s goes as the function %s with the documented input', (type, name, commands, properties, required) => {
    const { fn, notes } = offered({ type, name });
    expect(fn.name).toBe(name);
    expect(fn.description).toMatch(/\w/);
    const schema = schemaOf(fn);
    expect(schema.type).toBe('object');
    expect(Object.keys(schema.properties).sort()).toEqual([...properties].sort());
    expect(schema.properties['command']?.enum).toEqual(commands.length > 0 ? commands : undefined);
    expect(schema.required).toEqual(required);
    expect(notes).toEqual([]);
  });

  // Computer use: actions by version (computer use tool page; the 20250124 additions as @ai-sdk/anthropic
  // lists them), zoom only with enable_zoom on computer_20251124.
  const actions20241022 = [
    'key',
    'type',
    'mouse_move',
    'left_click',
    'left_click_drag',
    'right_click',
    'middle_click',
    'double_click',
    'screenshot',
    'cursor_position',
  ];
  const actions20250124 = [...actions20241022, 'hold_key', 'left_mouse_down', 'left_mouse_up', 'triple_click', 'scroll', 'wait'];
  it.each<[string, Record<string, unknown>, string[], string[]]>([
    ['computer_20241022', {}, actions20241022, ['action', 'coordinate', 'text']],
    [
      'computer_20250124',
      {},
      actions20250124,
      ['action', 'coordinate', 'text', 'start_coordinate', 'scroll_direction', 'scroll_amount', 'duration'],
    ],
    [
      'computer_20251124',
      {},
      actions20250124,
      ['action', 'coordinate', 'text', 'start_coordinate', 'scroll_direction', 'scroll_amount', 'duration'],
    ],
    [
      'computer_20251124',
      { enable_zoom: true },
      [...actions20250124, 'zoom'],
      ['action', 'coordinate', 'text', 'start_coordinate', 'scroll_direction', 'scroll_amount', 'duration', 'region'],
    ],
  ])('%s %j goes as the function computer with its actions, on a display of the size given', (type, settings, actions, properties) => {
    const { fn, notes } = offered({ type, name: 'computer', display_width_px: 1280, display_height_px: 800, ...settings });
    expect(fn.name).toBe('computer');
    expect(fn.description).toContain('1280x800');
    const schema = schemaOf(fn);
    expect(schema.properties['action']?.enum).toEqual(actions);
    expect(Object.keys(schema.properties).sort()).toEqual([...properties].sort());
    expect(schema.required).toEqual(['action']);
    expect(notes).toEqual([]);
  });

  it('lets tool_choice name a client tool, as a custom one', () => {
    const result = chatBodyOf({
      ...base,
      messages,
      tools: [{ type: 'text_editor_20250728', name: 'str_replace_based_edit_tool', max_characters: 10_000 }],
      tool_choice: { type: 'tool', name: 'str_replace_based_edit_tool' },
    });
    expect(result.chatBody['tool_choice']).toEqual({ type: 'function', function: { name: 'str_replace_based_edit_tool' } });
  });
});

describe('anthropicToChatRequest: other Anthropic-defined tools', () => {
  it.each([
    'web_search_20250305',
    'web_fetch_20250910',
    'code_execution_20250825',
    'tool_search_tool_regex_20251119',
    'advisor_20260301',
    'mcp_toolset',
  ])('drops the server tool %s with the note that it runs at Anthropic only', (type) => {
    const result = chatBodyOf({ ...base, messages, tools: [{ type, name: 'x' }] });
    expect(result.chatBody).not.toHaveProperty('tools');
    expect(result.notes).toEqual([`dropped server tool ${type}: it runs at Anthropic only`]);
  });

  it('drops a tool type it has no schema for without claiming where it runs, and refuses to force it', () => {
    const toolset = { type: 'computer_toolset_20260801' };
    const result = chatBodyOf({ ...base, messages, tools: [toolset] });
    expect(result.chatBody).not.toHaveProperty('tools');
    expect(result.notes).toEqual(['dropped Anthropic tool computer_toolset_20260801: Airlock has no schema to offer it to a chat model']);
    const forced = anthropicToChatRequest({ ...base, messages, tools: [toolset], tool_choice: { type: 'any' } }, options);
    expect(forced).toEqual({ ok: false, status: 400, message: expect.stringMatching(/^computer_toolset_20260801 .*no schema/) });
  });
});
