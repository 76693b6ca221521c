import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProfileView } from '../../proxy/contracts/profileViews.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../support/http.ts';
import { SENTINEL_KEY } from '../support/sentinel.ts';
import { createClientToken, openWindowSession, type WindowSession } from './support/windowSession.ts';

/** Issue 22, fallbacks in the window: the profile form edits the list, a request's detail shows the way it took. */
let session: WindowSession;
let page: Page;
let token = '';

async function api(pathAndQuery: string, method: string, body: unknown): Promise<void> {
  const response = await session.harness.api(pathAndQuery, { method, body: JSON.stringify(body) });
  expect(response.ok, await response.text()).toBe(true);
}

beforeAll(async () => {
  session = await openWindowSession();
  page = session.page;
  token = await createClientToken(session.harness, 'fallback-e2e');
  await api('/profiles', 'POST', { id: 'backup', name: 'Backup gateway', baseUrl: session.harness.simulator.baseUrl });
  await api('/profiles/backup/key', 'PUT', { key: SENTINEL_KEY });
  // Without retries the scripted 503 is the first step's answer, not a retry's.
  await api('/profiles/main', 'PUT', { retry: { maxRetries: 0, maxRetryAfterMs: 8000 } });
});

afterAll(async () => {
  await session?.close();
});

describe('fallbacks in the window', () => {
  it('the profile form adds a fallback step, and the saved profile holds it', async () => {
    await page.goto(session.screenUrl('profiles'));
    await page
      .getByRole('navigation', { name: 'Profiles' })
      .getByRole('button', { name: /Main gateway/ })
      .click();
    const fallbacks = page.getByRole('group', { name: /^Fallbacks, tried in order/ });
    await fallbacks.getByRole('button', { name: 'Add' }).click();
    await fallbacks.getByLabel('Profile (blank: this one)').fill('backup');
    await fallbacks.getByLabel("Model (blank: the client's)").fill('qwen-plus');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await expect
      .poll(async () => {
        const view = (await (await session.harness.api('/profiles')).json()) as { profiles: ProfileView[] };
        return view.profiles.find((candidate) => candidate.profile.id === 'main')?.profile.fallbacks;
      })
      .toEqual([{ profileId: 'backup', model: 'qwen-plus' }]);
    await session.shot('90-profile-fallbacks');
  });

  it('a step naming a missing profile is refused with the cause and the fix', async () => {
    const fallbacks = page.getByRole('group', { name: /^Fallbacks, tried in order/ });
    await fallbacks.getByRole('button', { name: 'Add' }).click();
    await fallbacks.getByLabel('Profile (blank: this one)').last().fill('nowhere');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await expect
      .poll(() => page.getByRole('alert').allTextContents())
      .toContainEqual(expect.stringContaining('"nowhere", which does not exist'));
    await fallbacks.getByRole('button', { name: 'Remove nowhere' }).click();
  });

  it('the Live row marks a request that fell back, and its detail shows the chain', async () => {
    session.harness.simulator.script({ kind: 'status', status: 503, path: 'chat/completions' });
    const response = await rawRequest(`${session.harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
      body: chatBody(),
    });
    expect(response.status).toBe(200);
    expect(response.headers['x-airlock-answered-by']).toBe('backup/qwen-plus');
    await page.goto(session.screenUrl('live'));
    const row = page.locator('.request-row', { hasText: 'fell back' }).first();
    await row.waitFor();
    await row.click();
    const chain = page.getByRole('region', { name: 'Request detail' }).getByRole('list', { name: 'Fallback chain' });
    await chain.waitFor();
    expect(await chain.getByRole('listitem').allTextContents()).toEqual([
      'main/gpt-4o-mini: 503 upstream_error',
      'backup/qwen-plus: answered 200',
    ]);
    await session.shot('91-detail-fallback-chain');
  });
});
