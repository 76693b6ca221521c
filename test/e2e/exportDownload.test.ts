import { parse } from 'csv-parse/sync';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harSchema } from '../support/harSchema.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../support/http.ts';
import { findSentinel } from '../support/sentinel.ts';
import { createClientToken, openWindowSession, SCREENSHOT_DIR, type WindowSession } from './support/windowSession.ts';

let session: WindowSession;
let clientToken = '';

beforeAll(async () => {
  session = await openWindowSession();
  clientToken = await createClientToken(session.harness, 'download-agent');
  for (const model of ['gpt-4o-mini', 'glm-4.6'])
    await rawRequest(`${session.harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${clientToken}` },
      body: chatBody({ model }),
    });
});

afterAll(async () => {
  await session?.close();
});

/**
 * Presses a button from the keyboard and returns the file Chromium downloaded, saved where the test
 * can read it. The button keeps focus through the export (it is marked busy, not disabled).
 */
async function downloadBy(buttonName: string, fileName: string): Promise<{ suggested: string; text: string }> {
  await session.page.getByRole('button', { name: buttonName }).focus();
  const [download] = await Promise.all([session.page.waitForEvent('download'), session.page.keyboard.press('Enter')]);
  const target = path.join(SCREENSHOT_DIR, fileName);
  await download.saveAs(target);
  await expect.poll(() => session.page.evaluate(() => document.activeElement?.textContent)).toBe(buttonName);
  return { suggested: download.suggestedFilename(), text: readFileSync(target, 'utf8') };
}

describe('export downloads from the window in Chromium', () => {
  it('downloads the request list, as filtered, as HAR 1.2 without the key', async () => {
    await session.page.goto(session.screenUrl('live'));
    await session.page.getByRole('button', { name: 'Export HAR' }).waitFor();
    await session.shot('export-live');
    const har = await downloadBy('Export HAR', 'export-requests.har');
    expect(har.suggested).toMatch(/^airlock-requests-\d{8}-\d{4}\.har$/);
    const document: unknown = JSON.parse(har.text);
    expect(harSchema.safeParse(document).error?.issues ?? []).toEqual([]);
    expect((document as { log: { entries: unknown[] } }).log.entries).toHaveLength(2);
    expect(findSentinel(har.text)).toBeNull();
    expect(har.text).not.toContain(clientToken);
  });

  it('downloads spend as CSV from the Spend screen', async () => {
    await session.page.goto(session.screenUrl('spend'));
    await session.page.getByRole('button', { name: 'Export CSV' }).waitFor();
    await session.shot('export-spend');
    const csv = await downloadBy('Export CSV', 'export-spend.csv');
    expect(csv.suggested).toMatch(/^airlock-spend-\d{8}-\d{4}\.csv$/);
    const rows = parse(csv.text, { columns: true }) as Record<string, string>[];
    expect(rows.map((row) => row.group).sort()).toEqual(['glm-4.6', 'gpt-4o-mini']);
  });

  it('sets the OTLP endpoint for traces in Connect', async () => {
    await session.page.goto(session.screenUrl('connect'));
    await session.page.getByLabel('OTLP endpoint').fill('http://127.0.0.1:4318');
    await session.page.getByRole('button', { name: 'Save endpoint' }).click();
    await session.page.getByText('Saved. Spans go to http://127.0.0.1:4318 from the next request on.').waitFor();
    await session.page.locator('.trace-export').scrollIntoViewIfNeeded();
    await session.shot('export-trace-setting');
    expect(await (await session.harness.api('/settings/trace-export')).json()).toMatchObject({ otlpEndpoint: 'http://127.0.0.1:4318' });
  });
});
