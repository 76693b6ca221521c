import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JSON_HEADERS, rawRequest } from '../support/http.ts';
import { claudeCodeBody } from '../support/claudeCodeBody.ts';
import { openWindowSession, createClientToken, type WindowSession } from './support/windowSession.ts';

/** A Claude Code turn late in a long session (DESIGN.md, "A large request's conversation"). */
const BODY_BYTES = 3_000_000;
const LAST_PROMPT = 'Now run the parser tests again';
/**
 * How many of a long list's entries the tree shows at once. What keeps the window answering is how
 * much it renders, so the tests count what is rendered, never the time it took: a busy machine's
 * timings say nothing of the code.
 */
const PAGE_ENTRIES = 100;

let session: WindowSession;
let page: Page;
let requestId = '';
/** The body's messages: its history and the newest prompt. */
let messageCount = 0;

beforeAll(async () => {
  session = await openWindowSession();
  page = session.page;
  // The log keeps 1 MiB of a body by default; a cut body is no JSON and has no tree.
  const limits = await session.harness.api('/settings/memory', { method: 'PUT', body: JSON.stringify({ bodyCaptureKiB: 4096 }) });
  expect(limits.status).toBe(200);
  const token = await createClientToken(session.harness, 'claude-code');
  const body = claudeCodeBody(BODY_BYTES, LAST_PROMPT);
  messageCount = body.toolCalls * 2 + 2;
  const answer = await rawRequest(`${session.harness.proxy.url}/v1/messages`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, 'x-api-key': token, 'anthropic-version': '2023-06-01' },
    body: body.text,
  });
  expect(answer.status).toBe(200);
  requestId = String(answer.headers['x-airlock-request-id']);
  await session.harness.log.flush();
});

afterAll(async () => {
  await session?.close();
});

/** Opens the request's detail and its request body's tree. */
async function openBodyTree(): Promise<Locator> {
  await page.goto(session.screenUrl('live'));
  await page.goto(session.screenUrl(`live/${encodeURIComponent(requestId)}`));
  await page.getByRole('region', { name: 'Conversation' }).getByText(LAST_PROMPT, { exact: true }).waitFor();
  const summary = page.locator('details.body-panel > summary', { hasText: 'Request body' });
  await summary.click();
  const tree = summary.locator('..').locator('.json-tree');
  await tree.getByText('messages').first().waitFor();
  return tree;
}

describe("a large request body's tree in the window", () => {
  it('opens with its long lists closed, rendering a handful of entries, its body fetched once for the tree and the conversation', async () => {
    let bodyFetches = 0;
    page.on('request', (request) => {
      if (request.url().endsWith(`/requests/${requestId}/body/request`)) bodyFetches += 1;
    });
    const tree = await openBodyTree();
    // Before, the tree opened three levels deep: every one of the 1,788 messages and their fields at once.
    const messages = tree.locator('.json-key', { hasText: /^messages:$/ }).locator('..');
    expect(await messages.getAttribute('aria-expanded')).toBe('false');
    expect(await tree.locator('[role="treeitem"]').count()).toBeLessThan(PAGE_ENTRIES);
    expect(bodyFetches).toBe(1);
    await session.shot('64-detail-large-body-tree');
  });

  it("opens an agent's 1,788 messages a page at a time, keeping what was opened", async () => {
    const tree = await openBodyTree();
    const messagesLabel = tree.locator('.json-key', { hasText: /^messages:$/ });
    const messages = messagesLabel.locator('..');
    const shownMessages = messages.locator(':scope > [role="group"] > [role="treeitem"]').filter({ hasNot: page.locator('.json-more') });
    await messagesLabel.click();
    await expect.poll(() => shownMessages.count()).toBe(PAGE_ENTRIES);
    expect(await messages.getByRole('button', { name: `Show all ${messageCount.toLocaleString('en-US')}`, exact: true }).count()).toBe(1);

    // What the user opened stays open as more is shown.
    const firstContentLabel = shownMessages.first().locator('.json-key', { hasText: /^content:$/ });
    const firstContent = firstContentLabel.locator('..');
    await firstContentLabel.click();
    expect(await firstContent.getAttribute('aria-expanded')).toBe('true');
    await messages.getByRole('button', { name: /^Show 100 more/ }).click();
    await expect.poll(() => shownMessages.count()).toBe(2 * PAGE_ENTRIES);
    expect(await firstContent.getAttribute('aria-expanded')).toBe('true');
    await messages.getByRole('button', { name: /^Show 100 more/ }).scrollIntoViewIfNeeded();
    await session.shot('65-detail-large-body-tree-paged');
  });

  it("marks the list's search in the tree's shown entries, and in those shown later", async () => {
    // Each assistant message's role: the first page of the messages holds 50, the second 50 more.
    const needle = 'assistant';
    const treeMarks = () =>
      page.evaluate(() => [...(CSS.highlights.get('body-search') ?? [])].map((range) => (range as Range).toString().toLowerCase()));
    await page.goto(session.screenUrl('live'));
    await page.getByRole('searchbox', { name: 'Search' }).fill(needle);
    await page.goto(session.screenUrl(`live/${encodeURIComponent(requestId)}`));
    const summary = page.locator('details.body-panel > summary', { hasText: 'Request body' });
    await summary.click();
    const panel = summary.locator('..');
    // A match opens the body in its Raw view, marked; the tree is a click away.
    await panel.getByRole('button', { name: 'Tree' }).click();
    const messagesLabel = panel.locator('.json-tree .json-key', { hasText: /^messages:$/ });
    await messagesLabel.click();
    await panel.getByRole('button', { name: /^Show 100 more/ }).waitFor();
    await expect.poll(treeMarks).toEqual(Array(50).fill(needle));
    await panel.getByRole('button', { name: /^Show 100 more/ }).click();
    await expect.poll(treeMarks).toEqual(Array(100).fill(needle));
    await page.getByRole('searchbox', { name: 'Search' }).fill('');
    await expect.poll(treeMarks).toEqual([]);
  });
});
