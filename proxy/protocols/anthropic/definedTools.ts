import type { ChatFunctionTool } from '../chat/chatMessages.ts';

/**
 * Anthropic-defined tools (its tool reference: platform.claude.com/docs/en/agents-and-tools/tool-use/tool-reference).
 * Client tools (bash, text editor, memory, computer use) have a schema Anthropic defines and gives the
 * model itself, and the client runs them: to a chat model they go as functions of the same name, with
 * the input each tool's page documents, so a call comes back as the tool_use the client runs. Server
 * tools run inside Anthropic's API and have no chat equivalent.
 */

/** A typed tool as the request gave it: its type, name, and its other settings (a display's size). */
export interface AnthropicDefinedTool {
  originalType: string;
  name: string | undefined;
  settings: Record<string, unknown>;
}

type ChatFunction = ChatFunctionTool['function'];
type JsonSchema = Record<string, unknown>;

const text = (description: string): JsonSchema => ({ type: 'string', description });
const integer = (description: string): JsonSchema => ({ type: 'integer', description });
const integers = (count: number, description: string): JsonSchema => ({
  type: 'array',
  items: { type: 'integer' },
  minItems: count,
  maxItems: count,
  description,
});
const oneOf = (values: readonly string[], description: string): JsonSchema => ({ type: 'string', enum: values, description });
const objectSchema = (properties: Record<string, JsonSchema>, required: string[]): JsonSchema => ({ type: 'object', properties, required });

const BASH: ChatFunction = {
  name: 'bash',
  description:
    'Runs a command in a bash shell that persists between calls (working directory, variables) and returns its output. ' +
    'Set restart instead to start a fresh shell.',
  parameters: objectSchema(
    {
      command: text('The command to run.'),
      restart: { type: 'boolean', description: 'Start a fresh shell instead of running a command.' },
    },
    [],
  ),
};

const PATH = text('Path of the file or directory.');
const VIEW_RANGE = integers(2, 'view, on a file: first and last line to show, from 1; -1 as the last shows to the end.');
const OLD_STR = text('str_replace: the exact text to replace, whitespace included; it must occur exactly once.');
const FILE_TEXT = text('create: the content of the new file.');
const INSERT_LINE = integer('insert: the line after which the text goes; 0 puts it at the top.');
const TEXT_EDITOR_DESCRIPTION =
  'Views and edits text files. view shows a file with its line numbers, or lists a directory; ' +
  'str_replace replaces text that occurs exactly once; create writes a new file; insert adds text after a line.';

/**
 * Claude 3.x versions: insert's text is `new_str`, and undo_edit exists (the schema Anthropic's
 * computer-use demo gave, quoted in drivecore/mycoder#59; the text editor page for undo_edit).
 */
const TEXT_EDITOR_OF_CLAUDE_3: ChatFunction = {
  name: 'str_replace_editor',
  description: `${TEXT_EDITOR_DESCRIPTION} undo_edit reverts the last edit of a file.`,
  parameters: objectSchema(
    {
      command: oneOf(['view', 'create', 'str_replace', 'insert', 'undo_edit'], 'What to do.'),
      path: PATH,
      view_range: VIEW_RANGE,
      old_str: OLD_STR,
      new_str: text('str_replace: the text to put in its place; insert: the text to insert.'),
      file_text: FILE_TEXT,
      insert_line: INSERT_LINE,
    },
    ['command', 'path'],
  ),
};

/** Claude 4 versions: no undo_edit, and insert's text is `insert_text` (anthropics/anthropic-sdk-python#1155). */
const TEXT_EDITOR_OF_CLAUDE_4: ChatFunction = {
  name: 'str_replace_based_edit_tool',
  description: TEXT_EDITOR_DESCRIPTION,
  parameters: objectSchema(
    {
      command: oneOf(['view', 'create', 'str_replace', 'insert'], 'What to do.'),
      path: PATH,
      view_range: VIEW_RANGE,
      old_str: OLD_STR,
      new_str: text('str_replace: the text to put in its place.'),
      file_text: FILE_TEXT,
      insert_line: INSERT_LINE,
      insert_text: text('insert: the text to insert.'),
    },
    ['command', 'path'],
  ),
};

/** The memory tool's commands (its page; the SDK's BetaMemoryTool20250818*Command types). */
const MEMORY: ChatFunction = {
  name: 'memory',
  description:
    'Reads and writes files in the /memories directory, which persist between conversations: check it before a task, ' +
    'record what is worth keeping. view shows a file or lists a directory; create, str_replace and insert edit files; ' +
    'delete removes a file or directory; rename moves one.',
  parameters: objectSchema(
    {
      command: oneOf(['view', 'create', 'str_replace', 'insert', 'delete', 'rename'], 'What to do.'),
      path: text('Path under /memories (every command but rename).'),
      view_range: VIEW_RANGE,
      file_text: FILE_TEXT,
      old_str: OLD_STR,
      new_str: text('str_replace: the text to put in its place.'),
      insert_line: INSERT_LINE,
      insert_text: text('insert: the text to insert.'),
      old_path: text('rename: the current path.'),
      new_path: text('rename: the new path.'),
    },
    ['command'],
  ),
};

/** Computer use actions by version (computer use tool page); zoom needs enable_zoom on computer_20251124. */
const COMPUTER_ACTIONS_20241022 = [
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
const COMPUTER_ACTIONS_20250124 = [
  ...COMPUTER_ACTIONS_20241022,
  'hold_key',
  'left_mouse_down',
  'left_mouse_up',
  'triple_click',
  'scroll',
  'wait',
];

function computer(
  version: 'computer_20241022' | 'computer_20250124' | 'computer_20251124',
  settings: Record<string, unknown>,
): ChatFunction {
  const zoom = version === 'computer_20251124' && settings['enable_zoom'] === true;
  const actions = version === 'computer_20241022' ? COMPUTER_ACTIONS_20241022 : COMPUTER_ACTIONS_20250124;
  const properties: Record<string, JsonSchema> = {
    action: oneOf(zoom ? [...actions, 'zoom'] : actions, 'What to do; screenshot returns the screen.'),
    coordinate: integers(2, '[x, y] in pixels from the top left: where to click, move, scroll, or end a drag.'),
    text: text(
      version === 'computer_20241022'
        ? 'type: the text to type; key: the key or combination (xdotool syntax, e.g. ctrl+s).'
        : 'type: the text to type; key and hold_key: the key or combination (xdotool syntax, e.g. ctrl+s); ' +
            'clicks and scroll: modifier keys to hold.',
    ),
  };
  if (version !== 'computer_20241022') {
    properties['start_coordinate'] = integers(2, 'left_click_drag: [x, y] where the drag starts.');
    properties['scroll_direction'] = oneOf(['up', 'down', 'left', 'right'], 'scroll: which way.');
    properties['scroll_amount'] = integer('scroll: how many wheel steps.');
    properties['duration'] = { type: 'number', description: 'hold_key and wait: how long, in seconds.' };
  }
  if (zoom) properties['region'] = integers(4, 'zoom: [x1, y1, x2, y2], the corners of the area to see at full resolution.');
  return { name: 'computer', description: computerDescription(settings), parameters: objectSchema(properties, ['action']) };
}

/** The model learns the screen's size from the tool definition: a chat model only from its description. */
function computerDescription(settings: Record<string, unknown>): string {
  const width = settings['display_width_px'];
  const height = settings['display_height_px'];
  const displayNumber = settings['display_number'];
  const size = typeof width === 'number' && typeof height === 'number' ? ` The display is ${width}x${height} pixels.` : '';
  const x11Display = typeof displayNumber === 'number' ? ` It is X11 display :${displayNumber}.` : '';
  return `Controls a computer through its screen, mouse and keyboard.${size}${x11Display}`;
}

/** A client tool as a chat function of the name the request gave it (its fixed name); null for any other type. */
export function clientToolFunction(tool: AnthropicDefinedTool): ChatFunction | null {
  const fn = clientToolOf(tool);
  return fn === null ? null : { ...fn, name: tool.name ?? fn.name };
}

function clientToolOf(tool: AnthropicDefinedTool): ChatFunction | null {
  switch (tool.originalType) {
    case 'bash_20241022':
    case 'bash_20250124':
      return BASH;
    case 'text_editor_20241022':
    case 'text_editor_20250124':
      return TEXT_EDITOR_OF_CLAUDE_3;
    case 'text_editor_20250429':
    case 'text_editor_20250728':
      return TEXT_EDITOR_OF_CLAUDE_4;
    case 'memory_20250818':
      return MEMORY;
    case 'computer_20241022':
    case 'computer_20250124':
    case 'computer_20251124':
      return computer(tool.originalType, tool.settings);
    default:
      return null;
  }
}

/** Server tools by the start of their type: every version of web search, web fetch, code execution, advisor, tool search, MCP connector. */
const SERVER_TOOL_PREFIXES = ['web_search_', 'web_fetch_', 'code_execution_', 'advisor_', 'tool_search_tool_', 'mcp_toolset'];

export function isServerTool(tool: AnthropicDefinedTool): boolean {
  return SERVER_TOOL_PREFIXES.some((prefix) => tool.originalType.startsWith(prefix));
}
