import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TokenSecretResponse } from '../../../proxy/contracts/clientTokens.ts';
import { startGatewaySimulator, type GatewaySimulator } from '../../simulator/index.ts';
import { startControlHarness, type ControlHarness } from '../../support/controlHarness.ts';
import { JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';

/**
 * A Claude Code tool loop that a fallback step moves to another gateway partway: the thinking the
 * first gateway (DeepSeek, which asks for its reasoning_content back on a tool-call turn) sent goes
 * back to it only. The step's gateway never sent it, and Cerebras refuses the member with a 400
 * (test/simulator/dialects.ts cites it), which would fail the step meant to rescue the session.
 */
const BACKUP_KEY = 'sk-airlock-BACKUP-SENTINEL-6e2b9d4f1a8c07e3b5d9a2c4';
const REASONING_MODEL = 'deepseek-chat';
const TOOLS = [{ name: 'shell', description: 'run', input_schema: { type: 'object' } }];
const SHELL_CALL = { name: 'shell', arguments: '{"command":"ls"}' };

let harness: ControlHarness;
let backup: GatewaySimulator;
let token: string;

const send = (method: string, body: unknown): RequestInit => ({ method, body: JSON.stringify(body) });
const capabilities = { modelCapabilities: { [REASONING_MODEL]: { reasoning: true } } };

beforeAll(async () => {
  harness = await startControlHarness({ simulator: { ...capabilities, dialect: 'deepseek' } });
  backup = await startGatewaySimulator({ ...capabilities, dialect: 'cerebras', validKeys: [BACKUP_KEY] });
  const profile = (id: string, baseUrl: string) => ({
    id,
    name: id,
    baseUrl,
    // Translated, so no native probe reaches a gateway ahead of the requests under test.
    protocolModes: { messages: 'translate', responses: 'translate' },
    modelRoutes: [{ pattern: 'claude-*', target: REASONING_MODEL }],
    retry: { maxRetries: 0, maxRetryAfterMs: 8000 },
  });
  await harness.json('/profiles', send('POST', profile('main', harness.simulator.baseUrl)));
  await harness.json('/profiles/main/key', send('PUT', { key: SENTINEL_KEY }));
  await harness.json('/profiles', send('POST', profile('backup', backup.baseUrl)));
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

it("continues on the fallback step's gateway without the thinking the first gateway sent", async () => {
  harness.simulator.script({ kind: 'reply', toolCalls: [SHELL_CALL] });
  const prompt = { role: 'user', content: 'List the files.' };
  const first = await messages({ messages: [prompt] });
  expect(first.status).toBe(200);
  const content = first.json['content'] as { type: string; id?: string }[];
  expect(content.map((block) => block.type)).toEqual(['thinking', 'tool_use']);
  const toolUseId = content[1]?.id;

  await harness.json('/profiles/main', send('PUT', { fallbacks: [{ profileId: 'backup' }] }));
  harness.simulator.script({ kind: 'status', status: 503 });
  const next = await messages({
    messages: [
      prompt,
      { role: 'assistant', content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUseId, content: 'a.txt' }] },
    ],
  });
  expect(next.status, JSON.stringify(next.json)).toBe(200);
  const sentToBackup = JSON.parse(backup.received.at(-1)?.body.toString('utf8') ?? '{}') as { messages: Record<string, unknown>[] };
  const toolTurn = sentToBackup.messages.find((message) => message['role'] === 'assistant');
  expect(toolTurn?.['tool_calls']).toHaveLength(1);
  expect(toolTurn).not.toHaveProperty('reasoning_content');
});
