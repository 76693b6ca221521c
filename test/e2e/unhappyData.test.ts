import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatBody, JSON_HEADERS, rawRequest } from '../support/http.ts';
import { sidewaysOverflow } from './support/pageChecks.ts';
import { createClientToken, openWindowSession, type WindowSession } from './support/windowSession.ts';

/**
 * Data a gateway or client may send that the window must survive.
 */
let session: WindowSession;
let page: Page;
let token = '';
const LONG_MODEL = `m${'x'.repeat(1999)}`;

function chat(overrides: Record<string, unknown>, headers: Record<string, string> = {}) {
  return rawRequest(`${session.harness.proxy.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${token}`, ...headers },
    body: chatBody(overrides),
  });
}

const detail = () => page.getByRole('region', { name: 'Request detail' });

/** Opens a request's detail as a new window on its link would, once its row is logged. */
async function openRequest(id: string): Promise<void> {
  await session.harness.log.flush();
  await page.goto('about:blank');
  await page.goto(session.screenUrl(`live/${id}`));
  await detail().locator('dl.overview').waitFor();
}

async function openScreen(screen: string): Promise<void> {
  await page.goto('about:blank');
  await page.goto(session.screenUrl(screen));
  await page.locator('nav[aria-label="Screens"] a[aria-current="page"]').waitFor();
  await expect.poll(() => page.locator('.state-loading').count()).toBe(0);
}

const requestIdOf = (response: { headers: Record<string, string | string[] | undefined> }) =>
  String(response.headers['x-airlock-request-id']);

beforeAll(async () => {
  session = await openWindowSession();
  page = session.page;
  token = await createClientToken(session.harness, 'unhappy-e2e');
});

afterAll(async () => {
  await session?.close();
});

describe('names no screen was laid out for', () => {
  it('keeps a 2,000-character model name inside the window on every screen that shows it', async () => {
    const response = await chat({ model: LONG_MODEL });
    await openRequest(requestIdOf(response));
    expect(await sidewaysOverflow(page)).toEqual([]);
    for (const screen of ['live', 'sessions', 'spend']) {
      await openScreen(screen);
      expect({ screen, overflow: await sidewaysOverflow(page) }).toEqual({ screen, overflow: [] });
    }
    await session.shot('70-long-model-spend');
  });
});
