/**
 * `npm run screenshots`: every screen at 1440x900 and 900x600, light and dark, against a real proxy
 * and the gateway simulator with a little traffic, saved under test-results/screenshots/ for review.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { AgentSessionPage } from '../../proxy/contracts/agentSessions.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../support/http.ts';
import { createClientToken, openWindowSession, SCREENSHOT_DIR } from '../e2e/support/windowSession.ts';

const OUT_DIR = path.join(SCREENSHOT_DIR, '..', 'screenshots');
const SIZES = [
  { width: 1440, height: 900 },
  { width: 900, height: 600 },
] as const;
const SCHEMES = ['light', 'dark'] as const;
/** Each screen, Live with a request's detail open, and one agent session's timeline. */
const VIEWS = ['live', 'live-detail', 'sessions', 'session-timeline', 'spend', 'profiles', 'models', 'connect'] as const;

const session = await openWindowSession({ simulator: { streamChunkCount: 8 } });
try {
  mkdirSync(OUT_DIR, { recursive: true });
  const { harness, page } = session;
  await harness.api('/profiles/main/prices', {
    method: 'PUT',
    body: JSON.stringify({ prices: [{ model: 'gpt-4o-mini', inputPer1M: 4000, outputPer1M: 8000 }], priceMultiplier: 1 }),
  });
  const token = await createClientToken(harness, 'claude-code');
  const send = (overrides: Record<string, unknown>) =>
    rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
      body: chatBody(overrides),
    });
  await send({
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'What is an airlock?' },
    ],
  });
  // An agent's session with a tool call and its result, for the Sessions screen.
  const tools = [
    { type: 'function', function: { name: 'read_file', parameters: { type: 'object', properties: { path: { type: 'string' } } } } },
  ];
  const opening = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Why does the parser test fail?' },
  ];
  harness.simulator.script({
    kind: 'reply',
    content: 'Reading the test first.',
    toolCalls: [{ name: 'read_file', arguments: '{"path":"parser.test.ts"}' }],
  });
  await send({ messages: opening, tools });
  await send({
    stream: true,
    tools,
    messages: [
      ...opening,
      {
        role: 'assistant',
        content: 'Reading the test first.',
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"parser.test.ts"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: "expect(parse('1+2')).toEqual(3)" },
    ],
  });
  await send({ stream: true, model: 'deepseek-chat' });
  await send({ model: 'qwen-plus' });
  harness.simulator.script({ kind: 'status', status: 429, body: { error: { message: 'Too many requests', type: 'rate_limit_error' } } });
  await send({});
  await harness.log.flush();
  const sessions = (await (await harness.api('/agent-sessions')).json()) as AgentSessionPage;
  const agentSession = sessions.items.find((item) => item.firstPrompt === 'Why does the parser test fail?');
  if (!agentSession) throw new Error('the tool-call session was not logged');

  let count = 0;
  for (const scheme of SCHEMES) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const size of SIZES) {
      await page.setViewportSize(size);
      for (const view of VIEWS) {
        const screen =
          view === 'live-detail' ? 'live' : view === 'session-timeline' ? `sessions/${encodeURIComponent(agentSession.id)}` : view;
        await page.goto(session.screenUrl(screen));
        await page.reload();
        await page.locator('nav[aria-label="Screens"] a[aria-current="page"]').waitFor();
        // Connect shows several sections loading at once: wait until none is.
        await page.waitForFunction(() => document.querySelector('.state-loading') === null);
        if (view === 'session-timeline') await page.getByRole('article', { name: 'Turn 2' }).waitFor();
        if (view === 'live-detail') {
          await page.locator('.request-row:not(.header)').first().click();
          await page.getByRole('region', { name: 'Request detail' }).locator('dl.overview').waitFor();
        }
        const file = path.join(OUT_DIR, `${view}-${size.width}x${size.height}-${scheme}.png`);
        await page.screenshot({ path: file });
        count += 1;
      }
    }
  }
  console.info(`${count} screenshots in ${path.relative(process.cwd(), OUT_DIR)}`);
} finally {
  await session.close();
}
