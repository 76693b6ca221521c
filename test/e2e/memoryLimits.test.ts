import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryLimits } from '../../proxy/contracts/config.ts';
import { openWindowSession, type WindowSession } from './support/windowSession.ts';

let session: WindowSession;
let page: Page;

/** What a screen reader reads after a field's name: the text of the elements its aria-describedby names. */
function descriptionOf(field: Locator): Promise<string> {
  return field.evaluate((element) =>
    (element.getAttribute('aria-describedby') ?? '')
      .split(/\s+/)
      .map((id) => document.getElementById(id)?.textContent ?? '')
      .join(' ')
      .trim(),
  );
}

beforeAll(async () => {
  session = await openWindowSession();
  page = session.page;
});

afterAll(async () => {
  await session?.close();
});

describe('memory limits on Connect', () => {
  it('shows the limits, refuses a bad one with its reason, and saves good ones to the config the proxy reads', async () => {
    await page.goto(session.screenUrl('connect'));
    const section = page.getByRole('region', { name: 'Memory' });
    await expect.poll(() => section.textContent()).toContain('keeps each body up to 1024 KiB, and holds at most 64 MiB');
    const backlog = section.getByLabel(/Log backlog/);
    const capture = section.getByLabel(/Body kept per request/);
    expect(await backlog.inputValue()).toBe('64');
    expect(await capture.inputValue()).toBe('1024');

    // From the keyboard: Enter in a field saves, and the refusal is told at the field it is about.
    await capture.fill('8');
    await capture.press('Enter');
    await expect.poll(() => section.getByRole('alert').textContent()).toBe('bodyCaptureKiB: must be at least 16');
    expect(await capture.getAttribute('aria-invalid')).toBe('true');
    expect(await descriptionOf(capture)).toBe('bodyCaptureKiB: must be at least 16');
    expect(await backlog.getAttribute('aria-invalid')).toBeNull();

    await capture.fill('256');
    await backlog.fill('128');
    await section.getByRole('button', { name: 'Save memory limits' }).click();
    await expect
      .poll(() => section.getByRole('status').textContent())
      .toBe('Saved. The log keeps each body up to 256 KiB, and holds at most 128 MiB of work it has not written yet.');
    expect(await capture.getAttribute('aria-invalid')).toBeNull();
    const saved = (await (await session.harness.api('/settings/memory')).json()) as MemoryLimits;
    expect(saved).toEqual({ logBacklogMiB: 128, bodyCaptureKiB: 256 });
    expect(session.harness.store.snapshot().settings.memoryLimits).toEqual(saved);

    await page.reload();
    await expect.poll(() => section.getByLabel(/Body kept per request/).inputValue()).toBe('256');
    await section.scrollIntoViewIfNeeded();
    await session.shot('36-connect-memory-limits');
  });
});
