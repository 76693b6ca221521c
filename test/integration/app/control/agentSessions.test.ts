import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentSessionPage, AgentSessionTimeline } from '../../../../proxy/contracts/agentSessions.ts';
import type { RequestPage } from '../../../../proxy/contracts/requests.ts';
import { runAirlock } from '../../../support/cliHarness.ts';
import { startControlHarness, type ControlHarness } from '../../../support/controlHarness.ts';
import { JSON_HEADERS, rawRequest } from '../../../support/http.ts';
import { chat, setUpProfile } from '../export/exportSetup.ts';

let harness: ControlHarness;
let token = '';

const TOOLS = [
  { type: 'function', function: { name: 'read_file', parameters: { type: 'object', properties: { path: { type: 'string' } } } } },
];
const opening = [
  { role: 'system', content: 'You are a coding agent.' },
  { role: 'user', content: 'Fix the failing test' },
];
const toolCall = {
  role: 'assistant',
  content: null,
  tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.test.ts"}' } }],
};
const toolResult = { role: 'tool', tool_call_id: 'call_a', content: 'expect(sum(1, 2)).toBe(4)' };

async function json<T>(pathAndQuery: string): Promise<T> {
  const response = await harness.api(pathAndQuery);
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as T;
}

async function responses(body: unknown): Promise<void> {
  const reply = await rawRequest(`${harness.proxy.url}/v1/responses`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  expect(reply.status, reply.body).toBe(200);
}

beforeAll(async () => {
  harness = await startControlHarness();
  token = await setUpProfile(harness, 'session-agent');
  const priced = await harness.api('/profiles/main/prices', {
    method: 'PUT',
    body: JSON.stringify({ prices: [{ model: 'gpt-4o-mini', inputPer1M: 1000, outputPer1M: 2000 }], priceMultiplier: 1 }),
  });
  expect(priced.status).toBe(200);
  // A tool without a session header: three turns, the model calls a tool, the client returns its result, then a failed turn.
  harness.simulator.script({ kind: 'reply', toolCalls: [{ name: 'read_file', arguments: '{"path":"a.test.ts"}' }] });
  expect((await chat(harness, token, { messages: opening, tools: TOOLS })).status).toBe(200);
  expect((await chat(harness, token, { messages: [...opening, toolCall, toolResult], tools: TOOLS, stream: true })).status).toBe(200);
  const failed = await chat(harness, token, {
    model: 'no-such-model',
    messages: [
      ...opening,
      toolCall,
      toolResult,
      { role: 'assistant', content: 'The expectation is wrong.' },
      { role: 'user', content: 'Now run it' },
    ],
  });
  expect(failed.status).toBeGreaterThanOrEqual(400);
  // Claude Code names its session: one turn under its own id.
  const named = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${token}`, 'x-claude-code-session-id': 'cc-session-1' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Explain the build' }] }),
  });
  expect(named.status).toBe(200);
  // Responses (translated to chat for this gateway): the second turn sends the tool's output back.
  const input = [{ role: 'user', content: [{ type: 'input_text', text: 'List the files' }] }];
  await responses({ model: 'gpt-4o-mini', instructions: 'Be brief', input });
  await responses({
    model: 'gpt-4o-mini',
    instructions: 'Be brief',
    input: [
      ...input,
      { type: 'function_call', call_id: 'f1', name: 'ls', arguments: '{}' },
      { type: 'function_call_output', call_id: 'f1', output: 'a.ts b.ts' },
    ],
    stream: true,
  });
});

afterAll(async () => {
  await harness?.close();
});

const sessionWith = (page: AgentSessionPage, firstPrompt: string) => page.items.find((session) => session.firstPrompt === firstPrompt);

describe('agent sessions through the control API', () => {
  it('lists each conversation once, newest activity first, with its turns, cost and errors', async () => {
    const page = await json<AgentSessionPage>('/agent-sessions');
    expect(page.items.map((session) => session.firstPrompt)).toEqual(['List the files', 'Explain the build', 'Fix the failing test']);
    const fix = sessionWith(page, 'Fix the failing test');
    expect(fix).toMatchObject({ source: 'derived', clientName: 'session-agent', turns: 3, errors: 1 });
    expect(fix?.id).toMatch(/^conv-/);
    expect(sessionWith(page, 'Explain the build')).toMatchObject({ id: 'cc-session-1', source: 'agent', turns: 1, errors: 0 });
    // The cost is the sum of its requests' costs as the request list shows them.
    const requests = await json<RequestPage>('/requests?limit=50');
    const costs = requests.items.filter((row) => row.agentSessionId === fix?.id).map((row) => row.costCredits ?? 0);
    expect(costs).toHaveLength(3);
    expect(fix?.costCredits).toBeCloseTo(
      costs.reduce((sum, cost) => sum + cost, 0),
      12,
    );
    expect(fix?.costCredits).toBeGreaterThan(0);
  });

  it("shows a session's turns with the tool call, the tool result the client added, and the failed turn", async () => {
    const page = await json<AgentSessionPage>('/agent-sessions');
    const id = sessionWith(page, 'Fix the failing test')?.id ?? '';
    const timeline = await json<AgentSessionTimeline>(`/agent-sessions/${encodeURIComponent(id)}`);
    expect(timeline.nextCursor).toBeNull();
    const [first, second, third] = timeline.turns;
    expect(first).toMatchObject({ index: 1, change: { kind: 'first' }, answer: [{ kind: 'tool_call', name: 'read_file' }] });
    expect(first?.change.added.map((item) => item.kind)).toEqual(['system', 'user']);
    expect(second?.request.stream).toBe(true);
    expect(second?.change).toMatchObject({
      kind: 'appended',
      sinceTurn: 1,
      keptItems: 2,
      echoedAnswerItems: 1,
      added: [{ kind: 'tool_result', callId: 'call_a', text: 'expect(sum(1, 2)).toBe(4)' }],
    });
    expect(second?.answer?.[0]).toMatchObject({ kind: 'assistant', text: expect.stringContaining('Simulated reply') });
    expect(third?.change).toMatchObject({ kind: 'appended', sinceTurn: 2, added: [{ kind: 'user', text: 'Now run it' }] });
    expect(third?.request.errorClass).not.toBeNull();
    expect(third?.errorMessage).toBeTruthy();
  });

  it('pages long timelines and compares a page’s first turn with the turn before it', async () => {
    const page = await json<AgentSessionPage>('/agent-sessions');
    const id = encodeURIComponent(sessionWith(page, 'Fix the failing test')?.id ?? '');
    const firstPage = await json<AgentSessionTimeline>(`/agent-sessions/${id}?limit=2`);
    expect(firstPage.turns.map((turn) => turn.index)).toEqual([1, 2]);
    expect(firstPage.nextCursor).not.toBeNull();
    const secondPage = await json<AgentSessionTimeline>(`/agent-sessions/${id}?limit=2&cursor=${firstPage.nextCursor}`);
    expect(secondPage.turns).toHaveLength(1);
    expect(secondPage.turns[0]).toMatchObject({ index: 3, change: { kind: 'appended', sinceTurn: 2 } });
    expect(secondPage.nextCursor).toBeNull();
    // Sessions page the same way.
    const sessions = await json<AgentSessionPage>('/agent-sessions?limit=2');
    expect(sessions.items).toHaveLength(2);
    const rest = await json<AgentSessionPage>(`/agent-sessions?limit=2&cursor=${sessions.nextCursor}`);
    expect(rest.items.map((session) => session.firstPrompt)).toEqual(['Fix the failing test']);
  });

  it('reads a translated Responses session: the function output the client sent back', async () => {
    const page = await json<AgentSessionPage>('/agent-sessions');
    const id = encodeURIComponent(sessionWith(page, 'List the files')?.id ?? '');
    const timeline = await json<AgentSessionTimeline>(`/agent-sessions/${id}`);
    expect(timeline.session.turns).toBe(2);
    expect(timeline.turns[1]?.change).toMatchObject({
      kind: 'appended',
      echoedAnswerItems: 1,
      added: [{ kind: 'tool_result', callId: 'f1', text: 'a.ts b.ts' }],
    });
    expect(timeline.turns[1]?.answer?.some((item) => item.kind === 'assistant')).toBe(true);
  });

  it('answers an unknown session with 404 and what to do', async () => {
    const response = await harness.api('/agent-sessions/no-such-session');
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/session/i);
  });
});

describe('airlock sessions', () => {
  it('lists the sessions from the log file', async () => {
    const run = await runAirlock(harness.dataDir, harness.secrets, ['sessions']);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain('cc-session-1');
    expect(run.stdout).toMatch(/conv-[0-9a-f]{24} .* session-agent {2}3 turns .* 1 error\n {4}Fix the failing test/);
  });

  it("prints a session's timeline: what the client added, what the model answered, the error", async () => {
    const page = await json<AgentSessionPage>('/agent-sessions');
    const id = sessionWith(page, 'Fix the failing test')?.id ?? '';
    const run = await runAirlock(harness.dataDir, harness.secrets, ['sessions', id]);
    expect(run.exitCode, run.stderr).toBe(0);
    const text = run.stdout;
    expect(text).toContain(`Session ${id} (recognised by its opening messages)`);
    expect(text).toMatch(/#1 .*\/v1\/chat\/completions[\s\S]*\+ user: Fix the failing test[\s\S]*= tool call read_file \[call_/);
    expect(text).toMatch(
      /#2 [\s\S]*since turn 1: kept 2 items, 1 echo the previous answer\n {2}\+ tool result \[call_a\]: expect\(sum\(1, 2\)\)\.toBe\(4\)/,
    );
    expect(text).toMatch(/#3 .*no-such-model[\s\S]*\+ user: Now run it\n {2}! /);
  });

  it('says how to find the ids when the session is not in the log', async () => {
    const run = await runAirlock(harness.dataDir, harness.secrets, ['sessions', 'nope']);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(`no session nope in the log: \`npx airlock sessions --data-dir ${harness.dataDir}\` lists the ids`);
  });
});
