import type { ChatFunctionTool } from '../chat/chatMessages.ts';
import type { ResponsesCustomTool } from './requestSchema.ts';

/**
 * A Responses `custom` tool takes raw text, optionally held to a grammar (Codex sends apply_patch
 * so, with a Lark grammar, to gpt-5.5 and later). Chat has function tools only, so it goes as a
 * function taking that text as its one string argument, `input`: the JSON form of apply_patch
 * Codex itself has (openai/codex create_apply_patch_json_tool). Codex runs a call of it only as a
 * `custom_tool_call` carrying the text (https://github.com/MetaFARS/codex-relay/issues/37), so the
 * answer's call is unwrapped again (output.ts).
 */

const INPUT_ARGUMENT = 'input';

export function customChatTool(tool: ResponsesCustomTool, name: string, description: string | null | undefined): ChatFunctionTool {
  const input = { type: 'string', description: inputDescription(tool.format) };
  const fn: ChatFunctionTool['function'] = {
    name,
    parameters: { type: 'object', properties: { [INPUT_ARGUMENT]: input }, required: [INPUT_ARGUMENT], additionalProperties: false },
  };
  if (description) fn.description = description;
  return { type: 'function', function: fn };
}

/**
 * The grammar is the only account of the input's format a chat model gets (Codex's instructions to
 * gpt-5.5 leave apply_patch's format to it), so it goes along whole, as CLIProxyAPI's translation
 * does (https://github.com/router-for-me/CLIProxyAPI/issues/4414); Codex's grammars are under 1 KB.
 */
function inputDescription(format: ResponsesCustomTool['format']): string {
  const raw = "The tool's whole input as raw text, not JSON-encoded";
  if (format?.type !== 'grammar' || !format.definition) return `${raw}.`;
  const rule = format.syntax === 'regex' ? 'regular expression' : `${format.syntax ?? ''} grammar`.trim();
  return `${raw}. It must match this ${rule}:\n${format.definition}`;
}

/** A custom tool call's input as the chat function's arguments (a call in the history). */
export function customToolArguments(input: string): string {
  return JSON.stringify({ [INPUT_ARGUMENT]: input });
}

/** The raw text a chat model's call carries; arguments that are not the `input` object are taken as the text itself. */
export function customToolInput(chatArguments: string): string {
  try {
    const parsed: unknown = JSON.parse(chatArguments);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
      const input = (parsed as Record<string, unknown>)[INPUT_ARGUMENT];
      if (typeof input === 'string') return input;
    }
  } catch {
    // Not JSON: a model that wrote the text itself.
  }
  return chatArguments;
}
