import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JSON_HEADERS, rawRequest } from '../support/http.ts';
import { claudeCodeBody, toolName } from '../support/claudeCodeBody.ts';
import { findSentinel, SENTINEL_KEY } from '../support/sentinel.ts';
import { axeViolations, sidewaysOverflow } from './support/pageChecks.ts';
import { createClientToken, openWindowSession, type WindowSession } from './support/windowSession.ts';

/** A Claude Code turn of a long session: far past the 64 KB the request detail carries inline. */
const BODY_BYTES = 300_000;
const LAST_PROMPT = 'Now run the parser tests again';

let session: WindowSession;
let page: Page;
let requestId = '';
const body = claudeCodeBody(BODY_BYTES, LAST_PROMPT);

beforeAll(async () => {
  session = await openWindowSession();
  page = session.page;
  const token = await createClientToken(session.harness, 'claude-code');
  const answer = await rawRequest(`${session.harness.proxy.url}/v1/messages`, {
    method: 'POST',
    // The sentinel (the profile's gateway key) rides in a header only: it must reach neither the page nor the body it fetches.
    headers: { ...JSON_HEADERS, 'x-api-key': token, 'anthropic-version': '2023-06-01', 'x-gateway-key-copy': SENTINEL_KEY },
    body: body.text,
  });
  expect(answer.status).toBe(200);
  requestId = String(answer.headers['x-airlock-request-id']);
  await session.harness.log.flush();
});

afterAll(async () => {
  await session?.close();
});

describe("a large request's conversation in the window", () => {
  it('fetches the body and shows its newest turns: the last user prompt and the tool calls, with the earlier turns said collapsed', async () => {
    const bodyFetches: string[] = [];
    page.on('response', (response) => {
      if (response.url().endsWith(`/requests/${requestId}/body/request`)) void response.text().then((text) => bodyFetches.push(text));
    });
    await page.goto(session.screenUrl(`live/${encodeURIComponent(requestId)}`));
    const conversation = page.getByRole('region', { name: 'Conversation' });
    await conversation.getByText(LAST_PROMPT, { exact: true }).waitFor();
    const toolLabels = await conversation.locator('.tool-label').allTextContents();
    expect(toolLabels).toContain(`calls ${toolName(body.toolCalls)}`);
    expect(toolLabels.some((label) => label.startsWith('result of toolu_'))).toBe(true);
    expect(await conversation.textContent()).toMatch(/Showing the newest 20 of \d+ turns; \d+ earlier turns collapsed\./);
    // Only the turns in view are in the page, however many are shown.
    await conversation.getByRole('button', { name: /Show \d+ earlier turns/ }).click();
    await expect.poll(() => conversation.textContent()).toMatch(/Showing the newest 70 of/);
    expect(await conversation.locator('.turn').count()).toBeLessThan(70);
    await expect.poll(() => bodyFetches.length).toBe(1);
    expect(findSentinel(bodyFetches[0] ?? '')).toBeNull();
    expect(findSentinel(await page.content())).toBeNull();
    expect(await axeViolations(page)).toEqual([]);
    expect(await sidewaysOverflow(page)).toEqual([]);
    await session.shot('62-detail-large-conversation');
  });

  it('opens on a search match in an earlier, collapsed turn, shown and marked', async () => {
    // Only the task that opened the session says it: the first user turn, long collapsed by the newest 20.
    const word = 'flaky';
    expect(body.text.split(word)).toHaveLength(2);
    await page.goto(session.screenUrl('live'));
    await page.getByRole('searchbox', { name: 'Search' }).fill(word);
    await expect.poll(() => page.locator('.request-row:not(.header)').count()).toBe(1);
    await page.locator('.request-row:not(.header)').first().click();
    const conversation = page.getByRole('region', { name: 'Conversation' });
    const mark = conversation.locator('.conversation-scroll mark');
    await mark.first().waitFor();
    expect(await mark.allTextContents()).toEqual([word]);
    // In view: in the conversation's scroll and in the detail's, not merely somewhere in the page.
    const inView = await mark.evaluate((marked) =>
      ['.conversation-scroll', '.detail'].every((scroller) => {
        const view = (marked.closest(scroller) as HTMLElement).getBoundingClientRect();
        const at = marked.getBoundingClientRect();
        return at.top >= view.top && at.bottom <= view.bottom;
      }),
    );
    expect(inView).toBe(true);
    await session.shot('63-detail-conversation-search-match');
  });

  it('stays on the newest turns and the detail on its overview for a word only the system prompt holds', async () => {
    // Claude Code's system prompt holds most words a user searches for; opening on it showed every turn and scrolled the detail away.
    const word = 'interactive';
    expect(body.text.split(word)).toHaveLength(2);
    await page.goto(session.screenUrl('live'));
    // The log holds this one request, so the list shows it before the search applies: wait for the searched list.
    const searched = page.waitForResponse((response) => response.url().includes('/requests?') && response.url().includes(word));
    await page.getByRole('searchbox', { name: 'Search' }).fill(word);
    await searched;
    await expect.poll(() => page.locator('.request-row:not(.header)').count()).toBe(1);
    await page.locator('.request-row:not(.header)').first().click();
    const conversation = page.getByRole('region', { name: 'Conversation' });
    await conversation.locator('.turn').first().waitFor();
    expect(await conversation.textContent()).toMatch(/Showing the newest 20 of \d+ turns/);
    expect(await page.locator('.detail').evaluate((detail) => detail.scrollTop)).toBe(0);
  });
});
