import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatBody, JSON_HEADERS } from '../support/http.ts';
import { hasChatText, openStream } from '../support/openStream.ts';
import { createClientToken, openWindowSession, type WindowSession } from './support/windowSession.ts';

let session: WindowSession;
let page: Page;
let token = '';

/** A Chat Completions stream's text chunk, then its end. */
const textChunk = (content: string) =>
  `data: ${JSON.stringify({ model: 'gpt-4o-mini', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
const STREAM_END = [
  `data: ${JSON.stringify({ model: 'gpt-4o-mini', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`,
  'data: [DONE]\n\n',
];

beforeAll(async () => {
  session = await openWindowSession();
  page = session.page;
  token = await createClientToken(session.harness, 'script');
});

afterAll(async () => {
  await session?.close();
});

describe("a running request's answer in its detail", () => {
  it('offers no partial answer while the stream runs, and the whole stream once it ended', async () => {
    const released = Promise.withResolvers<void>();
    // Held after its first two text chunks until the test has looked at the detail.
    session.harness.simulator.script({
      kind: 'bodyChunks',
      chunks: [textChunk('Hello'), textChunk(' world'), textChunk(' and the rest'), ...STREAM_END],
      intervalMs: 0,
      pause: { beforeChunk: 2, until: released.promise },
    });
    await page.goto(session.screenUrl('live'));
    const stream = openStream(
      `${session.harness.proxy.url}/v1/chat/completions`,
      { ...JSON_HEADERS, authorization: `Bearer ${token}` },
      chatBody({ stream: true }),
      hasChatText(2),
    );
    await stream.started;
    await page.locator('.request-row.in-flight').first().click();
    await expect.poll(() => page.getByTestId('live-text').textContent()).toBe('Hello world');
    const detail = page.getByRole('region', { name: 'Request detail' });
    // The proxy serves a running request's answer from nowhere but the live text: the log has it once it ended.
    await detail.getByText('Stream events: none recorded.').waitFor();
    expect(await detail.getByText('Response body: none recorded.').count()).toBe(1);

    released.resolve();
    expect((await stream.outcome).endedCleanly).toBe(true);
    await detail.getByRole('heading', { name: 'Stream text' }).waitFor();
    const summary = detail.locator('details.body-panel > summary', { hasText: 'Stream events' });
    await summary.click();
    const panel = summary.locator('..');
    await panel.getByRole('button', { name: 'Raw' }).click();
    const events = (await panel.locator('pre.body-text').textContent()) ?? '';
    expect(events).toContain(' and the rest');
    expect(events).toContain('[DONE]');
  });
});
