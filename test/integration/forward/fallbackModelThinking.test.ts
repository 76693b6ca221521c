import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TokenSecretResponse } from '../../../proxy/contracts/clientTokens.ts';
import { openrouterClaude } from '../../simulator/dialects.ts';
import { startControlHarness, type ControlHarness } from '../../support/controlHarness.ts';
import { JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';
import { SHELL_CALL, send, TOOLS } from './fallbackPair.ts';

/**
 * A Claude Code tool loop through OpenRouter in front of Claude, whose model fails partway and whose
 * profile falls back to another Claude model on the same gateway. Claude's thinking signatures are
 * bound to the model that made them: sent to another, the turn is refused with "Invalid `signature`
 * in `thinking` block" (test/simulator/relayThinking.ts cites it), which failed the step meant to
 * rescue the session. OpenRouter answers a turn without the blocks (without thinking), so the step
 * goes without them; the first model, back, still gets its own.
 */
const MAIN_MODEL = 'anthropic/claude-sonnet-4.5';
const BACKUP_MODEL = 'anthropic/claude-haiku-4.5';

let harness: ControlHarness;
let token = '';

beforeAll(async () => {
  const reasoning = { reasoning: true };
  harness = await startControlHarness({
    simulator: {
      dialect: openrouterClaude,
      models: [MAIN_MODEL, BACKUP_MODEL],
      modelCapabilities: { [MAIN_MODEL]: reasoning, [BACKUP_MODEL]: reasoning },
    },
  });
  await harness.json(
    '/profiles',
    send('POST', {
      id: 'main',
      name: 'main',
      baseUrl: harness.simulator.baseUrl,
      // Translated, so no native probe reaches the gateway ahead of the requests under test.
      protocolModes: { messages: 'translate', responses: 'translate' },
      modelRoutes: [{ pattern: 'claude-*', target: MAIN_MODEL }],
      retry: { maxRetries: 0, maxRetryAfterMs: 8000 },
      fallbacks: [{ model: BACKUP_MODEL }],
    }),
  );
  await harness.json('/profiles/main/key', send('PUT', { key: SENTINEL_KEY }));
  await harness.json('/profiles/main/activate', send('POST', {}));
  token = (await harness.json<TokenSecretResponse>('/tokens', send('POST', { name: 'agent' }))).token;
});
afterAll(async () => {
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

/** The assistant tool-call turn of the chat request the gateway got last, and the model it was for. */
function lastSentToolTurn(): { model: unknown; turn: Record<string, unknown> | undefined } {
  const sent = JSON.parse(harness.simulator.received.at(-1)?.body.toString('utf8') ?? '{}') as {
    model?: unknown;
    messages: Record<string, unknown>[];
  };
  return { model: sent.model, turn: sent.messages.find((message) => message['role'] === 'assistant') };
}

it("continues a tool turn on the fallback model without the first model's signed thinking, and back on the first with it", async () => {
  harness.simulator.script({ kind: 'reply', toolCalls: [SHELL_CALL] });
  const prompt = { role: 'user', content: 'List the files.' };
  const first = await messages({ messages: [prompt] });
  expect(first.status).toBe(200);
  const content = first.json['content'] as { type: string; id?: string }[];
  expect(content.map((block) => block.type)).toEqual(['thinking', 'tool_use']);
  const continued = {
    messages: [
      prompt,
      { role: 'assistant', content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: content[1]?.id, content: 'a.txt' }] },
    ],
  };

  harness.simulator.script({ kind: 'status', status: 503 });
  const rescued = await messages(continued);
  expect(rescued.status, JSON.stringify(rescued.json)).toBe(200);
  const toBackup = lastSentToolTurn();
  expect(toBackup.model).toBe(BACKUP_MODEL);
  expect(toBackup.turn?.['tool_calls']).toHaveLength(1);
  expect(toBackup.turn).not.toHaveProperty('reasoning_details');

  const resumed = await messages(continued);
  expect(resumed.status, JSON.stringify(resumed.json)).toBe(200);
  const toMain = lastSentToolTurn();
  expect(toMain.model).toBe(MAIN_MODEL);
  expect(toMain.turn?.['reasoning_details']).toHaveLength(1);
});
