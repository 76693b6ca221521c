import { expect, it } from 'vitest';
import type { GatewaySimulator } from '../../simulator/index.ts';
import { SHELL_CALL, startedFallbackPair } from './fallbackPair.ts';

/**
 * A Claude Code tool loop on Gemini that a fallback step moves to another gateway partway: the
 * thought signature Gemini gave a call (carried in the call's id, thoughtSignature.ts) goes back to
 * Gemini only. The step's gateway never signed the call, and a strict one refuses the member it does
 * not know (Mistral's 422 `extra_forbidden`; "Extra inputs are not permitted", BerriAI/litellm#15758),
 * which would fail the step meant to rescue the session.
 */
const GEMINI_MODEL = 'gemini-3-pro-preview';
type SentMessage = { role: string; tool_calls?: Record<string, unknown>[]; tool_call_id?: string };

const pair = startedFallbackPair({
  main: { dialect: 'gemini', models: [GEMINI_MODEL] },
  backup: { dialect: 'cerebras' },
  mainTarget: GEMINI_MODEL,
  backupTarget: 'qwen-plus',
});

function sentMessages(simulator: GatewaySimulator): SentMessage[] {
  return (JSON.parse(simulator.received.at(-1)?.body.toString('utf8') ?? '{}') as { messages: SentMessage[] }).messages;
}

it("continues a Gemini tool loop on Gemini with the call's signature, and on the fallback step's gateway without it", async () => {
  const prompt = { role: 'user', content: 'List the files.' };
  const toolTurn = async () => {
    pair.harness.simulator.script({ kind: 'reply', toolCalls: [SHELL_CALL] });
    const answer = await pair.messages({ messages: [prompt] });
    expect(answer.status, JSON.stringify(answer.json)).toBe(200);
    const content = answer.json['content'] as { type: string; id?: string }[];
    const toolUse = content.find((block) => block.type === 'tool_use');
    return [
      prompt,
      { role: 'assistant', content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse?.id, content: 'a.txt' }] },
    ];
  };

  // Gemini refuses the turn without the signature it gave (the simulator's gemini dialect).
  const onGemini = await pair.messages({ messages: await toolTurn() });
  expect(onGemini.status, JSON.stringify(onGemini.json)).toBe(200);
  const sentToGemini = sentMessages(pair.harness.simulator).find((message) => message.role === 'assistant');
  expect(sentToGemini?.tool_calls?.[0]).toHaveProperty('extra_content.google.thought_signature');

  const history = await toolTurn();
  await pair.fallBackToBackup();
  pair.harness.simulator.script({ kind: 'status', status: 503 });
  const next = await pair.messages({ messages: history });
  expect(next.status, JSON.stringify(next.json)).toBe(200);
  const sentToBackup = sentMessages(pair.backup);
  const call = sentToBackup.find((message) => message.role === 'assistant')?.tool_calls?.[0];
  const result = sentToBackup.find((message) => message.role === 'tool');
  expect(call).toBeDefined();
  expect(call).not.toHaveProperty('extra_content');
  expect(call?.['id']).toBe(result?.tool_call_id);
  expect(String(call?.['id'])).not.toContain('__sig_');
});
