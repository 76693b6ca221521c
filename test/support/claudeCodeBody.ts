/**
 * A Claude Code turn's Messages body as it grows over a session: system blocks, tools, and a history
 * of assistant text with a tool_use, each answered by a tool_result holding a file, then the user's
 * newest prompt. Claude Code resends the whole history every turn, so a long session's body is
 * hundreds of KB (DESIGN.md, "Request bodies stored as pieces").
 */

type Block = Record<string, unknown>;

/** Words that do not repeat in a row, so a body is not one long run of the same text. */
function fileText(seed: number, chars: number): string {
  const words: string[] = [];
  let length = 0;
  for (let index = 0; length < chars; index += 1) {
    const word = `line${(seed * 31 + index * 7) % 997}`;
    words.push(index % 12 === 11 ? `${word};\n` : word);
    length += word.length + 1;
  }
  return words.join(' ');
}

export interface ClaudeCodeBody {
  text: string;
  /** How many tool calls the history holds; the last one's name is `toolName(toolCalls)`. */
  toolCalls: number;
}

/** The name of the `turn`th tool call (1-based), as the body names it. */
export const toolName = (turn: number): string => `Read_${turn}`;

/** A body of at least `minBytes`, ending with the user's `lastPrompt`. */
export function claudeCodeBody(minBytes: number, lastPrompt: string): ClaudeCodeBody {
  const messages: { role: 'user' | 'assistant'; content: Block[] }[] = [
    { role: 'user', content: [{ type: 'text', text: 'Fix the flaky test in the parser' }] },
  ];
  const bodyOf = () =>
    JSON.stringify({
      model: 'claude-sonnet-4-5',
      max_tokens: 32_000,
      stream: true,
      system: [{ type: 'text', text: 'You are Claude Code, an interactive CLI tool.' }],
      tools: [{ name: 'Read', description: 'Reads a file', input_schema: { type: 'object', properties: { path: { type: 'string' } } } }],
      messages: [...messages, { role: 'user', content: [{ type: 'text', text: lastPrompt }] }],
    });
  let toolCalls = 0;
  while (Buffer.byteLength(bodyOf()) < minBytes) {
    toolCalls += 1;
    const id = `toolu_${String(toolCalls).padStart(4, '0')}`;
    messages.push({
      role: 'assistant',
      content: [
        { type: 'text', text: `Reading module ${toolCalls} next.` },
        { type: 'tool_use', id, name: toolName(toolCalls), input: { path: `src/module_${toolCalls}.ts` } },
      ],
    });
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: fileText(toolCalls, 3_000) }] });
  }
  return { text: bodyOf(), toolCalls };
}
