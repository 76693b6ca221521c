import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentSessionPage } from '../../../proxy/contracts/agentSessions.ts';
import { setUpMainProfileAndAgent, startControlHarness, type ControlHarness } from '../../support/controlHarness.ts';

/**
 * opencode's requests as opencode 1.18.33 sends them to an OpenAI-compatible provider
 * (`@ai-sdk/openai-compatible`), recorded through Airlock on 2026-11-29: every run asks for a title
 * beside its turns, and every request names the run's session in `x-session-affinity` and
 * `X-Session-Id` (packages/opencode/src/session/llm.ts). The title request opens alike in every run
 * (the same instructions, then "Generate a title for this conversation:"), so a session derived
 * from a conversation's opening put every run's title requests into one session of their own.
 */

const OPENCODE_USER_AGENT = 'opencode/1.18.33 ai-sdk/provider-utils/4.0.23 runtime/bun/1.3.14';
const TITLE_INSTRUCTIONS = 'You are a title generator. You output ONLY a thread title. Nothing else.';
const AGENT_INSTRUCTIONS = 'You are opencode, an agent - please keep going until the user’s query is completely resolved.';
const BASH_TOOL = {
  type: 'function',
  function: {
    name: 'bash',
    description: 'Runs a shell command',
    parameters: { type: 'object', properties: { command: { type: 'string' } } },
  },
};

let harness: ControlHarness;
let token: string;

beforeAll(async () => {
  harness = await startControlHarness();
  token = await setUpMainProfileAndAgent(harness);
});
afterAll(async () => {
  await harness?.close();
});

/** One request as opencode sends it, read to its end; a subagent's names its parent's session too. */
async function send(sessionId: string, body: object, parentSessionId?: string): Promise<void> {
  const response = await fetch(`${harness.proxy.url}/v1/chat/completions`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'user-agent': OPENCODE_USER_AGENT,
      'x-session-affinity': sessionId,
      'x-session-id': sessionId,
      ...(parentSessionId === undefined ? {} : { 'x-parent-session-id': parentSessionId }),
    },
    body: JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 32000, ...body, stream: true, stream_options: { include_usage: true } }),
  });
  expect(response.status).toBe(200);
  await response.text();
}

/** An `opencode run "<prompt>"`: the title request, then the agent's turn. */
async function openCodeRun(sessionId: string, prompt: string): Promise<void> {
  const quoted = JSON.stringify(prompt);
  await send(sessionId, {
    messages: [
      { role: 'system', content: TITLE_INSTRUCTIONS },
      { role: 'user', content: 'Generate a title for this conversation:\n' },
      { role: 'user', content: quoted },
    ],
  });
  await send(sessionId, {
    messages: [
      { role: 'system', content: AGENT_INSTRUCTIONS },
      { role: 'user', content: quoted },
    ],
    tools: [BASH_TOOL],
    tool_choice: 'auto',
  });
}

/** The agent's turn calls the task tool: a subagent runs in a session of its own, then the agent's turn goes on. */
async function subagentRun(sessionId: string, subagentSessionId: string, prompt: string): Promise<void> {
  await openCodeRun(sessionId, prompt);
  await send(
    subagentSessionId,
    {
      messages: [
        { role: 'system', content: AGENT_INSTRUCTIONS },
        { role: 'user', content: 'List the files' },
      ],
      tools: [BASH_TOOL],
      tool_choice: 'auto',
    },
    sessionId,
  );
}

describe('opencode through Airlock', () => {
  it('is one session per run under opencode’s own id, its title request and its subagent in it, never one session of all runs’ titles', async () => {
    await openCodeRun('ses_dda90fa31ffehi5sXK7Y2TpHwF', 'Write a haiku about rivers');
    await subagentRun('ses_dda9de2a1ffebz1NRq3c9h28X9', 'ses_dda88fb9cffeQA91EQaKInbYVx', 'Explain monads briefly');
    await harness.log.flush();

    const page = await harness.json<AgentSessionPage>('/agent-sessions');
    const sessions = page.items.map(({ id, source, turns }) => ({ id, source, turns }));
    expect(sessions).toEqual(
      expect.arrayContaining([
        { id: 'ses_dda90fa31ffehi5sXK7Y2TpHwF', source: 'agent', turns: 2 },
        { id: 'ses_dda9de2a1ffebz1NRq3c9h28X9', source: 'agent', turns: 3 },
      ]),
    );
    expect(sessions).toHaveLength(2);
  });
});
