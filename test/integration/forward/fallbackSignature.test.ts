import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TokenSecretResponse } from '../../../proxy/contracts/clientTokens.ts';
import { startGatewaySimulator, type GatewaySimulator } from '../../simulator/index.ts';
import { startControlHarness, type ControlHarness } from '../../support/controlHarness.ts';
import { JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';

/**
 * A Claude Code tool loop on Gemini that a fallback step moves to another gateway partway: the
 * thought signature Gemini gave a call (carried in the call's id, thoughtSignature.ts) goes back to
 * Gemini only. The step's gateway never signed the call, and a strict one refuses the member it does
 * not know (Mistral's 422 `extra_forbidden`; "Extra inputs are not permitted", BerriAI/litellm#15758),
 * which would fail the step meant to rescue the session.
 */
const BACKUP_KEY = 'sk-airlock-BACKUP-SENTINEL-3c9e1a7b5d2f0846e1b3c5a7';
const GEMINI_MODEL = 'gemini-3-pro-preview';
const TOOLS = [{ name: 'shell', description: 'run', input_schema: { type: 'object' } }];
const SHELL_CALL = { name: 'shell', arguments: '{"command":"ls"}' };

let harness: ControlHarness;
let backup: GatewaySimulator;
let token: string;

const send = (method: string, body: unknown): RequestInit => ({ method, body: JSON.stringify(body) });
type SentMessage = { role: string; tool_calls?: Record<string, unknown>[]; tool_call_id?: string };

beforeAll(async () => {
  harness = await startControlHarness({ simulator: { dialect: 'gemini', models: [GEMINI_MODEL] } });
  backup = await startGatewaySimulator({ dialect: 'cerebras', validKeys: [BACKUP_KEY] });
  const profile = (id: string, baseUrl: string, target: string) => ({
    id,
    name: id,
    baseUrl,
    // Translated, so no native probe reaches a gateway ahead of the requests under test.
    protocolModes: { messages: 'translate', responses: 'translate' },
    modelRoutes: [{ pattern: 'claude-*', target }],
    retry: { maxRetries: 0, maxRetryAfterMs: 8000 },
  });
  await harness.json('/profiles', send('POST', profile('main', harness.simulator.baseUrl, GEMINI_MODEL)));
  await harness.json('/profiles/main/key', send('PUT', { key: SENTINEL_KEY }));
  await harness.json('/profiles', send('POST', profile('backup', backup.baseUrl, 'qwen-plus')));
  await harness.json('/profiles/backup/key', send('PUT', { key: BACKUP_KEY }));
  await harness.json('/profiles/main/activate', send('POST', {}));
  token = (await harness.json<TokenSecretResponse>('/tokens', send('POST', { name: 'agent' }))).token;
});
afterAll(async () => {
  await backup?.close();
  await harness?.close();
});

async function messages(body: object): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await rawRequest(`${harness.proxy.url}/v1/messages`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
    body: JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 256, tools: TOOLS, ...body }),
  });
  await harness.loggedDetail(response);
  return { status: response.status, json: JSON.parse(response.body) as Record<string, unknown> };
}

function sentMessages(simulator: GatewaySimulator): SentMessage[] {
  return (JSON.parse(simulator.received.at(-1)?.body.toString('utf8') ?? '{}') as { messages: SentMessage[] }).messages;
}

it("continues a Gemini tool loop on Gemini with the call's signature, and on the fallback step's gateway without it", async () => {
  const prompt = { role: 'user', content: 'List the files.' };
  const toolTurn = async () => {
    harness.simulator.script({ kind: 'reply', toolCalls: [SHELL_CALL] });
    const answer = await messages({ messages: [prompt] });
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
  const onGemini = await messages({ messages: await toolTurn() });
  expect(onGemini.status, JSON.stringify(onGemini.json)).toBe(200);
  const sentToGemini = sentMessages(harness.simulator).find((message) => message.role === 'assistant');
  expect(sentToGemini?.tool_calls?.[0]).toHaveProperty('extra_content.google.thought_signature');

  const history = await toolTurn();
  await harness.json('/profiles/main', send('PUT', { fallbacks: [{ profileId: 'backup' }] }));
  harness.simulator.script({ kind: 'status', status: 503 });
  const next = await messages({ messages: history });
  expect(next.status, JSON.stringify(next.json)).toBe(200);
  const sentToBackup = sentMessages(backup);
  const call = sentToBackup.find((message) => message.role === 'assistant')?.tool_calls?.[0];
  const result = sentToBackup.find((message) => message.role === 'tool');
  expect(call).toBeDefined();
  expect(call).not.toHaveProperty('extra_content');
  expect(call?.['id']).toBe(result?.tool_call_id);
  expect(String(call?.['id'])).not.toContain('__sig_');
});
