import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JSON_HEADERS, rawRequest } from '../support/http.ts';
import { claudeCodeBody } from '../support/claudeCodeBody.ts';
import { openWindowSession, createClientToken, type WindowSession } from './support/windowSession.ts';

/** A Claude Code turn late in a long session (DESIGN.md, "A large request's conversation"). */
const BODY_BYTES = 3_000_000;
const LAST_PROMPT = 'Now run the parser tests again';
/** What Chromium reports as a long task or frame: the window did not answer input for that long. */
const LONG_TASK_MS = 50;

/** The page's record of long tasks and frames: those its observer was given, and those still queued for it. */
interface LongTasks {
  observer: PerformanceObserver;
  seen: PerformanceEntry[];
}

let session: WindowSession;
let page: Page;
let requestId = '';

beforeAll(async () => {
  session = await openWindowSession();
  page = session.page;
  // The log keeps 1 MiB of a body by default; a cut body is no JSON and has no tree.
  const limits = await session.harness.api('/settings/memory', { method: 'PUT', body: JSON.stringify({ bodyCaptureKiB: 4096 }) });
  expect(limits.status).toBe(200);
  const token = await createClientToken(session.harness, 'claude-code');
  const answer = await rawRequest(`${session.harness.proxy.url}/v1/messages`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, 'x-api-key': token, 'anthropic-version': '2023-06-01' },
    body: claudeCodeBody(BODY_BYTES, LAST_PROMPT).text,
  });
  expect(answer.status).toBe(200);
  requestId = String(answer.headers['x-airlock-request-id']);
  await session.harness.log.flush();
});

afterAll(async () => {
  await session?.close();
});

describe("a large request body's tree in the window", () => {
  it('opens without a main-thread task or frame over 50 ms, its body fetched once for the tree and the conversation', async () => {
    let bodyFetches = 0;
    page.on('request', (request) => {
      if (request.url().endsWith(`/requests/${requestId}/body/request`)) bodyFetches += 1;
    });
    await page.goto(session.screenUrl(`live/${encodeURIComponent(requestId)}`));
    await page.getByRole('region', { name: 'Conversation' }).getByText(LAST_PROMPT, { exact: true }).waitFor();
    // Counted from here: the tree's opening alone (Chromium reports each once it ended).
    await page.evaluate(() => {
      const seen: PerformanceEntry[] = [];
      const observer = new PerformanceObserver((entries) => seen.push(...entries.getEntries()));
      // A long task is script's; a long animation frame also counts the style, layout and paint it caused.
      observer.observe({ type: 'longtask' });
      observer.observe({ type: 'long-animation-frame' });
      (window as unknown as { longTasks: LongTasks }).longTasks = { observer, seen };
    });
    const summary = page.locator('details.body-panel > summary', { hasText: 'Request body' });
    const panel = summary.locator('..');
    await summary.click();
    await panel.locator('.json-tree').getByText('messages').first().waitFor();
    // What the tree's rendering started ends with the frame that paints it.
    const longTasksMs = await page.evaluate(
      (limitMs) =>
        new Promise<number[]>((resolve) =>
          requestAnimationFrame(() =>
            setTimeout(() => {
              const { observer, seen } = (window as unknown as { longTasks: LongTasks }).longTasks;
              const durations = [...seen, ...observer.takeRecords()].map((entry) => Math.round(entry.duration));
              observer.disconnect();
              resolve(durations.filter((durationMs) => durationMs > limitMs));
            }),
          ),
        ),
      LONG_TASK_MS,
    );
    expect(longTasksMs).toEqual([]);
    expect(bodyFetches).toBe(1);
    await session.shot('64-detail-large-body-tree');
  });
});
