import Anthropic from '@anthropic-ai/sdk';
import type { CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatBody, JSON_HEADERS, rawRequest } from '../support/http.ts';
import { findSentinel, SENTINEL_KEY } from '../support/sentinel.ts';
import { createClientToken, openWindowSession, readClipboard, type WindowSession } from './support/windowSession.ts';

/** Roles of controls a user operates; each needs an accessible name. */
const CONTROL_ROLES = new Set([
  'button',
  'textbox',
  'searchbox',
  'combobox',
  'listbox',
  'checkbox',
  'radio',
  'spinbutton',
  'slider',
  'switch',
]);
/** Bound on Tab presses while looking for a control by keyboard. */
const MAX_TABS = 40;

let session: WindowSession;
let page: Page;
let clientToken = '';

function chat() {
  return rawRequest(`${session.harness.proxy.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${clientToken}` },
    body: chatBody(),
  });
}

interface AxNode {
  ignored: boolean;
  role?: { value: string };
  name?: { value: string };
  properties?: { name: string; value: { value: unknown } }[];
}

/**
 * The controls in Chromium's own accessibility tree, and those it computes no name for (what a
 * screen reader would announce as unlabeled).
 */
async function auditControlNames(cdp: CDPSession): Promise<{ controls: number; unnamed: string[] }> {
  const { nodes } = (await cdp.send('Accessibility.getFullAXTree')) as { nodes: AxNode[] };
  const controls = nodes.filter((node) => !node.ignored && CONTROL_ROLES.has(node.role?.value ?? ''));
  const unnamed = controls
    .filter((node) => !(node.name?.value ?? '').trim())
    .map(
      (node) => `${node.role?.value} (${JSON.stringify(node.properties?.map((property) => [property.name, property.value.value]) ?? [])})`,
    );
  return { controls: controls.length, unnamed };
}

async function focusedName(): Promise<string> {
  return page.evaluate(() => {
    const element = document.activeElement as HTMLElement | null;
    return element?.getAttribute('aria-label') ?? element?.textContent?.trim() ?? '';
  });
}

/** Presses Tab until the focused element has `name` (bounded), as a keyboard-only user would. */
async function tabTo(name: string): Promise<void> {
  for (let presses = 0; presses < MAX_TABS; presses += 1) {
    if ((await focusedName()) === name) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached "${name}"; last focused: "${await focusedName()}"`);
}

beforeAll(async () => {
  session = await openWindowSession({ simulator: { streamChunkCount: 6 } });
  page = session.page;
  clientToken = await createClientToken(session.harness, 'e2e-detail');
  await session.harness.api('/profiles/main', {
    method: 'PUT',
    body: JSON.stringify({ modelRoutes: [{ pattern: 'claude-*', target: 'deepseek-chat' }] }),
  });
});

afterAll(async () => {
  await session?.close();
});

describe('request detail for a translated Anthropic request', () => {
  it('shows protocol, requested vs gateway model, stream text and raw events; curl holds a placeholder token only', async () => {
    const client = new Anthropic({ baseURL: session.harness.proxy.url, apiKey: clientToken, maxRetries: 0 });
    const stream = client.messages.stream({
      model: 'claude-haiku-4-5',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Tell me about airlocks' }],
    });
    const final = await stream.finalMessage();
    const answer = final.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
    expect(answer).not.toBe('');
    await session.harness.log.flush();

    await page.goto(session.screenUrl('live'));
    const row = page.locator('.request-row', { hasText: 'claude-haiku-4-5' }).first();
    await row.click();
    const detail = page.getByRole('region', { name: 'Request detail' });
    await detail.getByRole('heading', { name: 'Stream text' }).waitFor();
    const overview = (await detail.locator('dl.overview').textContent()) ?? '';
    expect(overview).toContain('POST /v1/messages');
    expect(overview).toContain('(anthropic, translate)');
    expect(overview).toMatch(/requested claude-haiku-4-5, sent deepseek-chat/);
    expect(await detail.getByRole('region', { name: 'Stream text' }).locator('pre').textContent()).toBe(answer);

    await detail.getByText('Raw stream events').click();
    const rawEvents = (await detail.locator('details.body-panel[open] pre.body-text').last().textContent()) ?? '';
    expect(rawEvents).toContain('data: ');
    await session.shot('40-detail-anthropic-translated');

    await detail.getByRole('button', { name: 'Copy as curl' }).click();
    await expect.poll(() => readClipboard(page)).toContain(`${session.harness.proxy.url}/v1/messages`);
    const curl = await readClipboard(page);
    expect(curl).toContain('-N');
    expect(curl).toContain('Authorization: Bearer $AIRLOCK_TOKEN');
    expect(curl).toContain('Tell me about airlocks');
    expect(curl).not.toContain(clientToken);
    expect(findSentinel(curl)).toBeNull();
    expect(curl).not.toContain(SENTINEL_KEY);
  });
});

describe('pause from the status bar', () => {
  it('refuses client requests with 403 proxy_paused while paused and serves them again after resume', async () => {
    const bar = page.locator('.status-bar');
    await bar.getByRole('button', { name: 'Pause proxy' }).click();
    await expect.poll(() => bar.textContent()).toContain('paused');
    expect(await bar.getByRole('button', { name: 'Resume proxy' }).getAttribute('aria-pressed')).toBe('true');
    const refused = await chat();
    expect(refused.status).toBe(403);
    expect(refused.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(refused.body).error.type).toBe('proxy_paused');
    await session.shot('41-paused');

    await bar.getByRole('button', { name: 'Resume proxy' }).click();
    await expect.poll(() => bar.textContent()).toContain('running');
    expect((await chat()).status).toBe(200);
  });
});

describe('keyboard and labels', () => {
  it('goes Live → detail → Close with the keyboard only', async () => {
    await page.goto(session.screenUrl('live'));
    // A fresh load: no selection left over from the tests above, focus at the start of the page.
    await page.reload();
    await page.locator('[role="option"]').first().waitFor();
    await tabTo('Requests, newest first');
    await page.keyboard.press('ArrowDown');
    const first = (await page.locator('[role="option"]').first().getAttribute('data-request-id')) ?? '';
    await expect.poll(() => page.getByRole('listbox').getAttribute('aria-activedescendant')).toBe(`request-${first}`);
    await page.keyboard.press('Enter');
    await expect.poll(focusedName).toBe('Request detail');
    await tabTo('Close detail (Escape)');
    await session.shot('42-keyboard-close-focused');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('region', { name: 'Request detail' }).count()).toBe(0);
    expect(await focusedName()).toBe('Requests, newest first');
  });

  it('gives every control on Profiles an accessible name (list, editor, new-profile form)', async () => {
    const cdp = await session.context.newCDPSession(page);
    await page.goto(session.screenUrl('profiles'));
    await page
      .getByRole('navigation', { name: 'Profiles' })
      .getByRole('button', { name: /Main gateway/ })
      .click();
    await page.getByRole('heading', { name: 'Main gateway' }).waitFor();
    const editing = await auditControlNames(cdp);
    expect(editing.unnamed).toEqual([]);
    // The editor, key field, test panel and price table are all on screen, not an empty tree.
    expect(editing.controls).toBeGreaterThan(20);
    await session.shot('43-profiles-labels');

    await page.getByRole('button', { name: 'Add profile' }).click();
    await page.getByLabel('Base URL').waitFor();
    const adding = await auditControlNames(cdp);
    expect(adding.unnamed).toEqual([]);
    expect(adding.controls).toBeGreaterThan(10);
    await cdp.detach();
  });
});
