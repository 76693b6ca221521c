import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAPABILITIES_FILE_NAME } from '../../proxy/app/capabilities/capabilityService.ts';
import { findSentinel } from '../support/sentinel.ts';
import { openWindowSession, type WindowSession } from './support/windowSession.ts';

let session: WindowSession;

beforeAll(async () => {
  session = await openWindowSession();
});
afterAll(async () => {
  await session?.close();
});

describe('notices in the window', () => {
  it('a problem while running shows with the alarms as it happens, is dismissed, and shows again when it happens again', async () => {
    const { harness, page } = session;
    await page.goto(session.screenUrl('live'));
    // A directory where capabilities.json goes: its save fails, as on a disk that refuses it.
    mkdirSync(path.join(harness.dataDir, CAPABILITIES_FILE_NAME));
    const checkCapabilities = () => harness.json('/models/gpt-4o-mini/capabilities', { method: 'POST' });

    await checkCapabilities();
    const alarms = page.getByRole('alert', { name: 'Alarms' });
    const notice = alarms.locator('li', { hasText: 'could not keep capability results' });
    // Pushed on the live channel: the page is not reloaded.
    await notice.waitFor();
    expect(await notice.textContent()).toContain('Free space on the disk');
    expect(findSentinel(await page.content())).toBeNull();
    await session.shot('70-notice');

    await notice.getByRole('button', { name: 'Dismiss' }).click();
    await notice.waitFor({ state: 'detached' });

    await checkCapabilities();
    await notice.waitFor();
  });
});
