import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatBody, JSON_HEADERS, rawRequest } from '../support/http.ts';
import { axeViolations } from './support/pageChecks.ts';
import { createClientToken, openWindowSession, type WindowSession } from './support/windowSession.ts';

/** Issue 22, Replay: a logged request sent again from the window, edited, with both answers side by side. */
let session: WindowSession;
let page: Page;
let token = '';

const detail = () => page.getByRole('region', { name: 'Request detail' });
const replay = () => detail().getByRole('region', { name: 'Replay', exact: true });

beforeAll(async () => {
  session = await openWindowSession();
  page = session.page;
  token = await createClientToken(session.harness, 'replay-e2e');
});

afterAll(async () => {
  await session?.close();
});

describe('Replay in the request detail', () => {
  it('refuses a body that is not JSON before sending, then sends the edit and shows both answers side by side', async () => {
    const reply = await rawRequest(`${session.harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
      body: chatBody({ messages: [{ role: 'user', content: 'Name a planet.' }] }),
    });
    expect(reply.status).toBe(200);
    const originalId = String(reply.headers['x-airlock-request-id']);
    await session.harness.log.flush();
    await page.goto(`${session.screenUrl('live')}/${originalId}`);

    await replay().getByRole('button', { name: 'Replay…' }).click();
    const editor = replay().getByLabel('Request body (JSON)');
    await expect.poll(() => editor.inputValue()).toContain('Name a planet.');
    const logged = await editor.inputValue();

    await editor.fill('{"model": ');
    const received = session.harness.simulator.received.length;
    await replay().getByRole('button', { name: 'Send replay' }).click();
    await expect.poll(() => replay().getByRole('alert').textContent()).toMatch(/not valid JSON/);
    expect(session.harness.simulator.received.length).toBe(received);

    await editor.fill(logged.replace('Name a planet.', 'Name two moons of Jupiter, briefly.'));
    await replay().getByRole('button', { name: 'Send replay' }).click();
    const comparison = replay().getByTestId('replay-comparison');
    await comparison.waitFor();

    const original = await comparison.getByTestId('replay-original-answer').textContent();
    const replayed = await comparison.getByTestId('replay-new-answer').textContent();
    expect(original).toBeTruthy();
    expect(replayed).toBeTruthy();
    expect(replayed).not.toBe(original);
    const upstream = session.harness.simulator.received.at(-1);
    expect(upstream?.body.toString('utf8')).toContain('Name two moons of Jupiter, briefly.');
    // Side by side: the two answers share a row.
    const [left, right] = await Promise.all([
      comparison.getByRole('region', { name: 'Original answer' }).boundingBox(),
      comparison.getByRole('region', { name: 'Replay answer' }).boundingBox(),
    ]);
    expect(left && right && Math.abs(left.y - right.y) < 1 && right.x > left.x).toBe(true);
    const figures = comparison.getByRole('table', { name: 'Original and replay' });
    expect(await figures.getByRole('row', { name: /Status/ }).textContent()).toMatch(/200.*200/);
    expect(await figures.getByRole('row', { name: /Input tokens/ }).textContent()).toMatch(/\+\d/);
    expect(await comparison.getByRole('region', { name: 'Answer difference' }).locator('ins').count()).toBeGreaterThan(0);
    await session.shot('80-replay-side-by-side');
    expect(await axeViolations(page)).toEqual([]);

    // The list marks the replay, and its own detail links back to the original.
    await expect.poll(() => page.locator('.request-row .endpoint', { hasText: '· replay' }).count()).toBe(1);
    await comparison.getByRole('link', { name: /^alk_/ }).click();
    await detail().getByRole('navigation', { name: 'Replays' }).getByRole('link', { name: originalId }).waitFor();
  });

  it('shows a streamed replay while it runs, then both answers', async () => {
    const reply = await rawRequest(`${session.harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
      body: chatBody({ stream: true, messages: [{ role: 'user', content: 'Stream a haiku.' }] }),
    });
    const originalId = String(reply.headers['x-airlock-request-id']);
    await session.harness.log.flush();
    await page.goto(`${session.screenUrl('live')}/${originalId}`);
    await replay().getByRole('button', { name: 'Replay…' }).click();
    await expect.poll(() => replay().getByLabel('Request body (JSON)').inputValue()).toContain('Stream a haiku.');

    const release = Promise.withResolvers<void>();
    session.harness.simulator.script({ kind: 'holdHeaders', until: release.promise });
    await replay().getByRole('button', { name: 'Send replay' }).click();
    await replay().getByTestId('replay-live-text').waitFor();
    release.resolve();
    const comparison = replay().getByTestId('replay-comparison');
    await comparison.waitFor();
    expect(await comparison.getByTestId('replay-new-answer').textContent()).toBe(
      await comparison.getByTestId('replay-original-answer').textContent(),
    );
  });

  it('is used from the keyboard alone: each step leaves focus in the panel, never on the page', async () => {
    const reply = await rawRequest(`${session.harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
      body: chatBody({ messages: [{ role: 'user', content: 'Count to three.' }] }),
    });
    await session.harness.log.flush();
    await page.goto(`${session.screenUrl('live')}/${String(reply.headers['x-airlock-request-id'])}`);
    // What a screen reader would start reading: the focused element's text.
    const focused = () =>
      page.evaluate(() => (document.activeElement === document.body ? 'the page' : (document.activeElement?.textContent ?? '')));
    const editorFocused = () => page.evaluate(() => document.activeElement?.classList.contains('replay-editor') ?? false);

    await replay().getByRole('button', { name: 'Replay…' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(editorFocused).toBe(true);
    await replay().getByRole('button', { name: 'Cancel' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(focused).toBe('Replay…');

    await page.keyboard.press('Enter');
    await expect.poll(editorFocused).toBe(true);
    await replay().getByRole('button', { name: 'Send replay' }).focus();
    await page.keyboard.press('Enter');
    await replay().getByTestId('replay-comparison').waitFor();
    // The answers come after the panel's heading, where focus waits.
    await expect.poll(focused).toBe('Replay');
    await replay().getByRole('button', { name: 'Edit and replay again' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(editorFocused).toBe(true);
  });
});
