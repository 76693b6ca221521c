import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedRequestLog } from './support/seedRequestLog.ts';
import { openWindowSession, type WindowSession } from './support/windowSession.ts';

/**
 * The Live screen's facet counts are read on the proxy's forwarding thread: over a 100,000-row log
 * a search's counts took 1.1-1.9 s there (a probe on two busy cores, 2026-11-29). Each change of
 * the filters must read them once.
 */
let session: WindowSession;
let page: Page;

beforeAll(async () => {
  session = await openWindowSession();
  page = session.page;
  // More than a page (200 rows): the list had taken in a page's worth of rows when the filter changed.
  seedRequestLog(session.harness.dataDir, { count: 1_000, newestStartedAtMs: Date.now() - 1_000, spacingMs: 50, profileId: 'main' });
});

afterAll(async () => {
  await session?.close();
});

describe('the facet counts', () => {
  it('are read once for a new search, not again when the list starts over for it', async () => {
    await page.goto(session.screenUrl('live'));
    const rows = page.locator('.request-row[data-request-id]');
    await rows.first().waitFor();
    await page.getByRole('navigation', { name: 'Facets' }).waitFor();
    const facetReads: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/_airlock/api/requests/facets')) facetReads.push(request.url());
    });
    await page.getByLabel('Search', { exact: true }).fill('seed row 7');
    // The list is the search's once its first page came, which the reset before it asked for.
    await expect.poll(async () => (await rows.allTextContents()).every((text) => text.includes('seed row 7'))).toBe(true);
    await expect
      .poll(() =>
        page
          .getByRole('navigation', { name: 'Facets' })
          .locator('summary', { hasText: /^Model/ })
          .textContent(),
      )
      .toBe('Model (3)');
    expect(facetReads.map((url) => new URL(url).search)).toEqual(['?text=seed+row+7']);
  });
});
