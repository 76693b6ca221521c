import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentSessionPage, AgentSessionTimeline } from '../../proxy/contracts/agentSessions.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../support/http.ts';
import { axeViolations, sidewaysOverflow } from './support/pageChecks.ts';
import { createClientToken, openWindowSession, type WindowSession } from './support/windowSession.ts';

/** Issue 22, "see an agent's session": the Sessions screen, a session's timeline of turns, and the way there from Live. */
let session: WindowSession;
let page: Page;
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
const LONG_SESSION_ID = '0b5e55ed-aaaa-bbbb-cccc-000000000300';
const LONG_SESSION_TURNS = 120;

async function send(body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<number> {
  const response = await rawRequest(`${session.harness.proxy.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${token}`, ...headers },
    body: chatBody(body),
  });
  return response.status;
}

async function sessionIdOf(firstPrompt: string): Promise<string> {
  const response = await session.harness.api('/agent-sessions?limit=50');
  const page = (await response.json()) as AgentSessionPage;
  const found = page.items.find((item) => item.firstPrompt === firstPrompt);
  if (!found) throw new Error(`no session starting with ${firstPrompt}`);
  return found.id;
}

async function expectCleanPage(): Promise<void> {
  expect(await axeViolations(page)).toEqual([]);
  expect(await sidewaysOverflow(page)).toEqual([]);
}

beforeAll(async () => {
  session = await openWindowSession();
  page = session.page;
  await session.harness.api('/profiles/main/prices', {
    method: 'PUT',
    body: JSON.stringify({ prices: [{ model: 'gpt-4o-mini', inputPer1M: 4000, outputPer1M: 8000 }], priceMultiplier: 1 }),
  });
  // The long session sends more requests within a minute than the burst guard lets through by default.
  await session.harness.api('/burst-limits', {
    method: 'PUT',
    body: JSON.stringify({ maxRequestsPerMinute: 1000, maxCreditsPerMinute: 1000 }),
  });
  token = await createClientToken(session.harness, 'coding-agent');
  session.harness.simulator.script({ kind: 'reply', toolCalls: [{ name: 'read_file', arguments: '{"path":"a.test.ts"}' }] });
  expect(await send({ messages: opening, tools: TOOLS })).toBe(200);
  expect(await send({ messages: [...opening, toolCall, toolResult], tools: TOOLS, stream: true })).toBe(200);
  const next = [
    ...opening,
    toolCall,
    toolResult,
    { role: 'assistant', content: 'The expectation is wrong.' },
    { role: 'user', content: 'Now run it' },
  ];
  expect(await send({ model: 'no-such-model', messages: next })).toBeGreaterThanOrEqual(400);
  // A long session under Claude Code's own id: each turn resends the history and adds one question.
  const history: Array<Record<string, unknown>> = [];
  for (let turn = 1; turn <= LONG_SESSION_TURNS; turn += 1) {
    history.push({ role: 'user', content: `Long session question ${turn}` });
    expect(await send({ messages: history }, { 'x-claude-code-session-id': LONG_SESSION_ID })).toBe(200);
    history.push({ role: 'assistant', content: `Answer ${turn}` });
  }
  await session.harness.log.flush();
});

afterAll(async () => {
  await session?.close();
});

describe('the Sessions screen', () => {
  it('lists sessions with their client, turns, cost and errors', async () => {
    await page.goto(session.screenUrl('sessions'));
    const row = page.getByRole('row').filter({ hasText: 'Fix the failing test' });
    await row.waitFor();
    const cells = await row.getByRole('cell').allTextContents();
    // Client, started, duration, turns, credits, errors.
    expect(cells[0]).toBe('coding-agent');
    expect(cells[3]).toBe('3');
    expect(Number(cells[4])).toBeGreaterThan(0);
    expect(cells[5]).toBe('1');
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'Long session question 1' }).count()).toBe(1);
    await expectCleanPage();
    await session.shot('90-sessions-list');
  });

  it("opens a session's timeline: the tool call, the tool result sent back, each turn's cost and the failed turn", async () => {
    await page.getByRole('link', { name: 'Fix the failing test' }).click();
    const id = await sessionIdOf('Fix the failing test');
    await expect.poll(() => page.evaluate(() => window.location.hash)).toBe(`#/sessions/${encodeURIComponent(id)}`);
    const turns = page.getByRole('region', { name: 'Turns, oldest first' });
    const first = turns.getByRole('article', { name: 'Turn 1' });
    await first.waitFor();
    await expect.poll(() => first.getByLabel('Turn 1: answer').textContent()).toContain('calls read_file');
    const second = turns.getByRole('article', { name: 'Turn 2' });
    const sent = await second.getByRole('region', { name: 'Turn 2: what the client sent' }).textContent();
    expect(sent).toContain('Since turn 1: 2 items kept, 1 item of the previous answer sent back, 1 new item.');
    expect(sent).toContain('tool result of [call_a]');
    expect(sent).toContain('expect(sum(1, 2)).toBe(4)');
    expect(await second.getByRole('region', { name: 'Turn 2: what the model answered' }).textContent()).toContain('Simulated reply');
    expect(await second.locator('.session-turn-header').textContent()).toMatch(/stream.*\d credits/);
    const third = turns.getByRole('article', { name: 'Turn 3' });
    expect(await third.textContent()).toContain('Now run it');
    expect(await third.locator('.session-turn-header .bad-text').textContent()).toMatch(/^\d{3} /);
    expect(await page.locator('.session-figures').textContent()).toMatch(/Turns:?3.*Cost:?.*credits.*Errors:?1/);
    await expectCleanPage();
    await session.shot('91-session-timeline');
  });

  it('keeps only the turns in view in the page, and loads later ones as it scrolls', async () => {
    await page.goto(session.screenUrl(`sessions/${LONG_SESSION_ID}`));
    const turns = page.getByRole('region', { name: 'Turns, oldest first' });
    await turns.getByRole('article', { name: 'Turn 1' }).waitFor();
    expect(await turns.getByRole('article').count()).toBeLessThan(20);
    expect(await turns.getByRole('list', { name: 'Turn 2: new items' }).textContent()).toContain('Long session question 2');
    const last = turns.getByRole('article', { name: `Turn ${LONG_SESSION_TURNS}` });
    await expect
      .poll(async () => {
        await turns.evaluate((element) => element.scrollTo({ top: element.scrollHeight }));
        return last.count();
      })
      .toBe(1);
    expect(await page.locator('.list-count').textContent()).toContain(`${LONG_SESSION_TURNS} of ${LONG_SESSION_TURNS} turns loaded`);
    expect(await turns.getByRole('article').count()).toBeLessThan(20);
  });

  it('is reached from a Live row and from the request detail', async () => {
    await page.goto(session.screenUrl('live'));
    const row = page.locator('.request-row', { hasText: 'Long session question 120' }).first();
    await row.waitFor();
    await row.locator('.session-mark').click();
    await expect.poll(() => page.evaluate(() => window.location.hash)).toBe(`#/sessions/${LONG_SESSION_ID}`);
    await page.getByRole('region', { name: 'Turns, oldest first' }).getByRole('article', { name: 'Turn 1' }).waitFor();

    // The failed turn is far down the list by now: its own address opens it.
    const id = await sessionIdOf('Fix the failing test');
    const timeline = (await (await session.harness.api(`/agent-sessions/${id}`)).json()) as AgentSessionTimeline;
    await page.goto(session.screenUrl(`live/${timeline.turns[2]?.request.id}`));
    const detail = page.getByRole('region', { name: 'Request detail' });
    await detail.getByRole('link', { name: "Open the session's timeline" }).click();
    await expect.poll(() => page.evaluate(() => window.location.hash)).toBe(`#/sessions/${id}`);
    await page.getByRole('article', { name: 'Turn 3' }).waitFor();
  });
});
