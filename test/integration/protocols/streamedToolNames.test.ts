import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Dialect } from '../../simulator/dialect.ts';
import { geminiNameInPieces, nimNameEveryDelta } from '../../simulator/dialects.ts';
import { startTranslatingHarness, type Harness } from '../../support/proxyHarness.ts';

/**
 * A streamed tool call's name as gateways that do not send it whole once send it (dialects.ts cites
 * them): cut in pieces (Gemini) or whole again in every chunk (MiniMax through NIM). Wherever Airlock
 * builds something from the chat deltas, the client must get the name whole and once: Claude Code,
 * Codex and OpenAI SDK scripts run a call by its name.
 */
let harness: Harness;

beforeAll(async () => {
  harness = await startTranslatingHarness();
});
afterAll(async () => {
  await harness.close();
});
beforeEach(() => harness.simulator.reset());

const TOOL_NAME = 'edit_existing_file';
const INPUT = { path: 'src/app.ts', edit: 'rename the export' };
const PARAMETERS = { type: 'object', properties: { path: { type: 'string' }, edit: { type: 'string' } } } as const;

const scriptCall = (dialect: Dialect, streamsWholeRequests: boolean): void => {
  harness.simulator.useDialect({ ...dialect, streamsWholeRequests });
  harness.simulator.script({ kind: 'reply', toolCalls: [{ name: TOOL_NAME, arguments: JSON.stringify(INPUT) }] });
};

const anthropic = (): Anthropic => new Anthropic({ baseURL: harness.proxy.url, apiKey: 'alk_client', maxRetries: 0 });
const openai = (): OpenAI => new OpenAI({ baseURL: `${harness.proxy.url}/v1`, apiKey: 'alk_client', maxRetries: 0 });

const MESSAGES_REQUEST = {
  model: 'claude-sonnet-4-6',
  max_tokens: 256,
  tools: [{ name: TOOL_NAME, input_schema: PARAMETERS }],
  messages: [{ role: 'user' as const, content: 'edit the file' }],
};

const RESPONSES_REQUEST = {
  model: 'gpt-5-codex',
  input: 'edit the file',
  tools: [{ type: 'function' as const, name: TOOL_NAME, strict: false, parameters: PARAMETERS }],
  store: false,
};

describe.each([
  ['in pieces (Gemini)', geminiNameInPieces],
  ['repeated in every chunk (MiniMax through NIM)', nimNameEveryDelta],
])('a tool call whose streamed name comes %s', (_case, dialect) => {
  it('reaches an OpenAI SDK client that asked for a whole answer with the name whole, once', async () => {
    scriptCall(dialect, true);
    const ended = harness.nextEnd();
    const completion = await openai().chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'edit the file' }],
      tools: [{ type: 'function', function: { name: TOOL_NAME, parameters: PARAMETERS } }],
      stream: false,
    });
    const [call] = completion.choices[0]?.message.tool_calls ?? [];
    expect(call?.type === 'function' ? call.function.name : null).toBe(TOOL_NAME);
    expect(JSON.parse(call?.type === 'function' ? call.function.arguments : 'null')).toEqual(INPUT);
    expect(await ended).toMatchObject({ status: 200, errorClass: null });
  });

  it('reaches an Anthropic client that asked for a whole answer as a tool_use with the name whole, once', async () => {
    scriptCall(dialect, true);
    const ended = harness.nextEnd();
    const message = await anthropic().messages.create(MESSAGES_REQUEST);
    expect(message.content).toEqual([expect.objectContaining({ type: 'tool_use', name: TOOL_NAME, input: INPUT })]);
    expect(await ended).toMatchObject({ status: 200, errorClass: null });
  });

  it('reaches a Responses client that asked for a whole answer as a function_call named whole, once', async () => {
    scriptCall(dialect, true);
    const ended = harness.nextEnd();
    const response = await openai().responses.create({ ...RESPONSES_REQUEST, stream: false });
    const calls = response.output.filter((item) => item.type === 'function_call');
    expect(calls).toEqual([expect.objectContaining({ name: TOOL_NAME })]);
    expect(JSON.parse(calls[0]?.arguments ?? 'null')).toEqual(INPUT);
    expect(await ended).toMatchObject({ status: 200, errorClass: null });
  });
});
