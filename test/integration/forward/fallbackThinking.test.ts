import { expect, it } from 'vitest';
import { SHELL_CALL, startedFallbackPair } from './fallbackPair.ts';

/**
 * A Claude Code tool loop that a fallback step moves to another gateway partway: the thinking the
 * first gateway (DeepSeek, which asks for its reasoning_content back on a tool-call turn) sent goes
 * back to it only. The step's gateway never sent it, and Cerebras refuses the member with a 400
 * (test/simulator/dialects.ts cites it), which would fail the step meant to rescue the session.
 */
const REASONING_MODEL = 'deepseek-chat';
const capabilities = { modelCapabilities: { [REASONING_MODEL]: { reasoning: true } } };

const pair = startedFallbackPair({
  main: { ...capabilities, dialect: 'deepseek' },
  backup: { ...capabilities, dialect: 'cerebras' },
  mainTarget: REASONING_MODEL,
  backupTarget: REASONING_MODEL,
});

it("continues on the fallback step's gateway without the thinking the first gateway sent", async () => {
  pair.harness.simulator.script({ kind: 'reply', toolCalls: [SHELL_CALL] });
  const prompt = { role: 'user', content: 'List the files.' };
  const first = await pair.messages({ messages: [prompt] });
  expect(first.status).toBe(200);
  const content = first.json['content'] as { type: string; id?: string }[];
  expect(content.map((block) => block.type)).toEqual(['thinking', 'tool_use']);
  const toolUseId = content[1]?.id;

  await pair.fallBackToBackup();
  pair.harness.simulator.script({ kind: 'status', status: 503 });
  const next = await pair.messages({
    messages: [
      prompt,
      { role: 'assistant', content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUseId, content: 'a.txt' }] },
    ],
  });
  expect(next.status, JSON.stringify(next.json)).toBe(200);
  const sentToBackup = JSON.parse(pair.backup.received.at(-1)?.body.toString('utf8') ?? '{}') as { messages: Record<string, unknown>[] };
  const toolTurn = sentToBackup.messages.find((message) => message['role'] === 'assistant');
  expect(toolTurn?.['tool_calls']).toHaveLength(1);
  expect(toolTurn).not.toHaveProperty('reasoning_content');
});
