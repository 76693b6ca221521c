import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatBody, JSON_HEADERS, rawRequest } from '../support/http.ts';
import { createClientToken, openWindowSession, readClipboard, type WindowSession } from './support/windowSession.ts';

/** Issue 21, "See the whole exchange" and the Live list's addresses and split. */
let session: WindowSession;
let page: Page;
let token = '';

function chat(overrides: Record<string, unknown>) {
  return rawRequest(`${session.harness.proxy.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
    body: chatBody(overrides),
  });
}

const detail = () => page.getByRole('region', { name: 'Request detail' });

beforeAll(async () => {
  session = await openWindowSession({ simulator: { streamChunkCount: 5 } });
  page = session.page;
  token = await createClientToken(session.harness, 'exchange-e2e');
});

afterAll(async () => {
  await session?.close();
});

describe('a chat with tools', () => {
  it('reads as a conversation, with the JSON body as a foldable tree, a raw view and a copy button', async () => {
    const messages = [
      { role: 'system', content: 'Answer in one word.' },
      { role: 'user', content: 'What is the weather in Tromsø?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Tromsø"}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'snowing, -4 °C' },
    ];
    expect((await chat({ messages })).status).toBe(200);
    await session.harness.log.flush();
    await page.goto(session.screenUrl('live'));
    const row = page.locator('.request-row', { hasText: 'gpt-4o-mini' }).first();
    expect(await row.locator('.endpoint').textContent()).toBe('chat');
    await row.click();

    const conversation = detail().getByRole('region', { name: 'Conversation' });
    await conversation.waitFor();
    const turns = await conversation
      .locator('li')
      .evaluateAll((items) => items.map((item) => item.querySelector('.turn-role')?.textContent));
    expect(turns).toEqual(['System', 'User', 'Assistant', 'Tool result', 'Assistant']);
    expect(await conversation.textContent()).toContain('calls get_weather');
    expect(await conversation.textContent()).toContain('snowing, -4 °C');
    await session.shot('60-detail-conversation');

    await detail().getByText('Request body').click();
    const tree = detail().locator('.json-tree').first();
    await tree.waitFor();
    expect(await tree.locator('.json-string', { hasText: 'Answer in one word.' }).count()).toBe(1);
    // Folding: the messages array closes and its strings leave the page.
    const messagesNode = tree.getByRole('treeitem').filter({ has: page.locator('.json-key', { hasText: /^messages/ }) });
    await messagesNode.first().getByRole('button', { name: 'collapse JSON' }).first().click();
    await expect.poll(() => tree.locator('.json-string', { hasText: 'Answer in one word.' }).count()).toBe(0);
    const body = detail().locator('details.body-panel').first();
    await body.getByRole('button', { name: 'Raw' }).click();
    expect(await body.locator('pre.body-text').textContent()).toContain('"tool_call_id": "c1"');
    await body.getByRole('button', { name: 'Copy body' }).click();
    await expect.poll(() => readClipboard(page)).toContain('What is the weather in Tromsø?');
  });
});

describe('a stream', () => {
  it('shows its events as a table with when each arrived and the text it added, beside the assembled text', async () => {
    expect((await chat({ stream: true, messages: [{ role: 'user', content: 'Stream please' }] })).status).toBe(200);
    await session.harness.log.flush();
    await page.goto(session.screenUrl('live'));
    const row = page.locator('.request-row', { hasText: 'stream' }).first();
    await row.click();
    await detail().getByRole('heading', { name: 'Stream text' }).waitFor();
    const assembled = (await detail().getByRole('region', { name: 'Stream text' }).locator('pre').textContent()) ?? '';
    await detail().getByText('Stream events').click();
    const events = detail().getByRole('region', { name: 'Stream events' });
    await events.waitFor();
    const added = await events.locator('tbody td.delta').allTextContents();
    expect(added.join('')).toBe(assembled);
    expect(await events.locator('tbody tr').last().textContent()).toContain('[DONE]');
    // Time since the request started, one per event, in arrival order.
    expect(await events.locator('thead th').allTextContents()).toEqual(['#', 'Time', 'Event', 'Text added', 'Data']);
    const times = await events.locator('tbody tr td:nth-child(2)').allTextContents();
    expect(times.length).toBe(await events.locator('tbody tr').count());
    const timesMs = times.map((time) => {
      const match = /^(\d+(?:\.\d+)?) (ms|s)$/.exec(time);
      if (!match) throw new Error(`not a time: ${time}`);
      return Number(match[1]) * (match[2] === 's' ? 1000 : 1);
    });
    expect(timesMs).toEqual([...timesMs].sort((a, b) => a - b));
    await session.shot('61-detail-stream-events');
  });
});

describe('search', () => {
  it('marks where the search matched in the detail', async () => {
    expect((await chat({ messages: [{ role: 'user', content: 'find the word periscope here' }] })).status).toBe(200);
    await session.harness.log.flush();
    await page.goto(session.screenUrl('live'));
    await page.getByRole('searchbox', { name: 'Search' }).fill('periscope');
    await expect.poll(() => page.locator('.request-row:not(.header)').count()).toBe(1);
    await page.locator('.request-row:not(.header)').first().click();
    await detail().locator('mark').first().waitFor();
    expect((await detail().locator('mark').allTextContents()).every((text) => text.toLowerCase() === 'periscope')).toBe(true);
    // The request body opened by itself on the match, in its raw view, and says how many it holds.
    expect(await detail().locator('details.body-panel[open] .match-count').first().textContent()).toBe('1 match for “periscope”');
    await session.shot('62-detail-search-marked');
  });
});

describe('addresses and the split', () => {
  it('gives each request its own address that opens it again', async () => {
    await page.goto(session.screenUrl('live'));
    await page.reload();
    const row = page.locator('.request-row:not(.header)').nth(1);
    const id = (await row.getAttribute('data-request-id')) ?? '';
    await row.click();
    await detail().waitFor();
    expect(new URL(page.url()).hash).toBe(`#/live/${id}`);
    await page.goto('about:blank');
    await page.goto(session.screenUrl(`live/${id}`));
    await expect.poll(() => detail().locator('dl.overview').textContent()).toContain(id);
    await detail().getByRole('button', { name: 'Close detail (Escape)' }).click();
    expect(new URL(page.url()).hash).toBe('#/live');
  });

  it('resizes the list and detail split from the keyboard', async () => {
    await page.locator('.request-row:not(.header)').first().click();
    const separator = page.getByRole('separator', { name: 'Resize the list and the detail' });
    await separator.waitFor();
    const before = (await detail().boundingBox())?.width ?? 0;
    await separator.focus();
    for (let step = 0; step < 5; step += 1) await page.keyboard.press('ArrowLeft');
    await expect.poll(async () => (await detail().boundingBox())?.width ?? 0).toBeGreaterThan(before + 20);
  });
});

describe('finding requests', () => {
  it('understands "failed", says what it cannot use, matches a model prefix, and filters by a clicked value', async () => {
    session.harness.simulator.script({ kind: 'status', status: 400, body: { error: { message: 'bad', type: 'invalid_request_error' } } });
    expect((await chat({ model: 'qwen-plus' })).status).toBe(400);
    await session.harness.log.flush();
    await page.goto(session.screenUrl('live'));
    await page.reload();
    const rows = page.locator('.request-row:not(.header)');
    await rows.first().waitFor();
    const all = await rows.count();

    const status = page.getByLabel('Status', { exact: true });
    await status.fill('failed');
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().locator('.status').textContent()).toContain('400');
    expect(await page.locator('#filter-problems').textContent()).toBe('');

    await status.fill('broken');
    await expect.poll(() => page.locator('#filter-problems').textContent()).toContain('"broken" is not a status');
    expect(await status.getAttribute('aria-invalid')).toBe('true');
    await expect.poll(() => rows.count()).toBe(all);
    await status.fill('');

    await page.getByLabel('Model', { exact: true }).fill('qwen*');
    await expect.poll(() => rows.count()).toBe(1);
    await page.getByLabel('Model', { exact: true }).fill('');
    await expect.poll(() => rows.count()).toBe(all);

    // Alt+click on a cell filters by its value; a plain click still opens the row.
    await rows
      .first()
      .locator('.status')
      .click({ modifiers: ['Alt'] });
    await expect.poll(() => status.inputValue()).toBe('400');
    await expect.poll(() => rows.count()).toBe(1);
    await status.fill('');
    await expect.poll(() => rows.count()).toBe(all);
    // Facets: what the listed requests hold, with counts, and a click filters by one.
    const facets = page.getByRole('navigation', { name: 'Facets' });
    await facets.locator('summary', { hasText: /^Error \(/ }).click();
    const badRequest = facets.getByRole('button', { name: /^Bad request \(bad_request\) 1$/ });
    await badRequest.click();
    await expect.poll(() => rows.count()).toBe(1);
    expect(await page.getByLabel('Error class').inputValue()).toBe('bad_request');
    await badRequest.click();
    await expect.poll(() => rows.count()).toBe(all);
    await facets.locator('summary', { hasText: /^Error \(/ }).click();
    await facets.locator('summary', { hasText: /^Endpoint \(/ }).click();
    expect(await facets.getByRole('button', { name: /^chat \(\/v1\/chat\/completions\)/ }).textContent()).toContain(String(all));
    await facets.locator('summary', { hasText: /^Endpoint \(/ }).click();

    await rows.first().click();
    await detail().getByRole('button', { name: 'Only these: requests with client exchange-e2e' }).click();
    await expect.poll(() => page.getByLabel('Client', { exact: true }).inputValue()).toBe('exchange-e2e');
    await session.shot('63-live-filtered-by-click');
  });
});

describe('a client retrying while paused', () => {
  it('collapses its identical refusals into one line that opens on a click', async () => {
    await session.harness.api('/burst-limits', {
      method: 'PUT',
      body: JSON.stringify({ maxRequestsPerMinute: 1, maxCreditsPerMinute: 5 }),
    });
    const looping = await createClientToken(session.harness, 'looping-agent');
    const send = () =>
      rawRequest(`${session.harness.proxy.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { ...JSON_HEADERS, authorization: `Bearer ${looping}` },
        body: chatBody(),
      });
    expect((await send()).status).toBe(200);
    for (let attempt = 0; attempt < 5; attempt += 1) expect((await send()).status).toBe(403);
    await session.harness.log.flush();
    await page.goto(session.screenUrl('live'));
    await page.reload();
    const group = page.locator('.refusal-group');
    await group.waitFor();
    expect(await group.textContent()).toContain('5 ×');
    expect(await group.textContent()).toContain('client_paused');
    expect(await page.locator('.request-row:not(.header)', { hasText: 'client_paused' }).count()).toBe(1);
    await session.shot('64-live-refusals-collapsed');
    await group.click();
    await expect.poll(() => page.locator('.request-row:not(.header)', { hasText: 'client_paused' }).count()).toBe(5);
    await session.harness.api('/burst-limits', {
      method: 'PUT',
      body: JSON.stringify({ maxRequestsPerMinute: 120, maxCreditsPerMinute: 5 }),
    });
    await session.harness.api('/clients/looping-agent/resume', { method: 'POST' });
  });
});

describe('a row', () => {
  it("says the agent's session and the first line of the prompt", async () => {
    const response = await rawRequest(`${session.harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${token}`, 'x-claude-code-session-id': '5e55f00d-1111-2222-3333-444455556666' },
      body: chatBody({ messages: [{ role: 'user', content: 'Refactor the token parser\nand keep the tests' }] }),
    });
    expect(response.status).toBe(200);
    await session.harness.log.flush();
    await page.setViewportSize({ width: 1400, height: 900 });
    await page.goto(session.screenUrl('live'));
    // The summary is read on the log thread: rows loaded from the log carry it. A busy machine may
    // show the list before the row's page arrives, so the page is loaded again until the row is there.
    const row = page.locator('.request-row', { hasText: 'Refactor the token parser' }).first();
    await expect
      .poll(async () => {
        if ((await row.count()) === 0) await page.reload();
        return row.count();
      })
      .toBeGreaterThan(0);
    expect(await row.locator('.preview').textContent()).toBe('Refactor the token parser');
    expect(await row.locator('.client').textContent()).toBe('exchange-e2e · 5e55f00d');
    expect(await row.locator('.client').getAttribute('title')).toContain('Session 5e55f00d-1111-2222-3333-444455556666');
  });

  it('shows the first line of its prompt once it ends, in a list already open, without a reload', async () => {
    await page.goto(session.screenUrl('live'));
    // The list's first page is in (rows, or none yet) and the live channel is open: the row can only come live.
    await page.locator('[role="listbox"], .state-empty').first().waitFor();
    await page.locator('.status-bar .dot.running').waitFor();
    // A page loaded again would lose this mark.
    await page.evaluate(() => Object.assign(window, { listOpenedOnce: true }));
    const response = await rawRequest(`${session.harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
      body: chatBody({ messages: [{ role: 'user', content: 'Explain the retry loop\nin two lines' }] }),
    });
    expect(response.status).toBe(200);
    const preview = page.locator('.request-row .preview', { hasText: 'Explain the retry loop' });
    await preview.waitFor();
    expect(await preview.textContent()).toBe('Explain the retry loop');
    expect(await page.evaluate(() => (window as { listOpenedOnce?: boolean }).listOpenedOnce)).toBe(true);
  });

  it('counts its spend under its session on the Spend screen', async () => {
    await page.goto(session.screenUrl('spend'));
    const table = page.getByRole('table').filter({ has: page.getByRole('columnheader', { name: 'Session' }) });
    const sessionRow = table.getByRole('row').filter({ hasText: '5e55f00d-1111-2222-3333-444455556666' });
    await sessionRow.waitFor();
    expect(await sessionRow.getByRole('cell').first().textContent()).toBe('1');
    // Requests whose client named no session are counted under the conversation Airlock recognised by its opening.
    expect(
      await table
        .getByRole('row')
        .filter({ hasText: /conv-[0-9a-f]{24}/ })
        .count(),
    ).toBeGreaterThan(0);
    await session.shot('65-spend-by-session');
  });
});
