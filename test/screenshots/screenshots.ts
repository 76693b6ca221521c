/**
 * `npm run screenshots`: every screen at 1440x900 and 900x600, light and dark, against a real proxy
 * and the gateway simulator with a little traffic, saved under test-results/screenshots/ for review.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chatBody, JSON_HEADERS, rawRequest } from '../support/http.ts';
import { createClientToken, openWindowSession, SCREENSHOT_DIR } from '../e2e/support/windowSession.ts';

const OUT_DIR = path.join(SCREENSHOT_DIR, '..', 'screenshots');
const SIZES = [
  { width: 1440, height: 900 },
  { width: 900, height: 600 },
] as const;
const SCHEMES = ['light', 'dark'] as const;
/** Each screen, and Live with a request's detail open. */
const VIEWS = ['live', 'live-detail', 'spend', 'profiles', 'models', 'connect'] as const;

const session = await openWindowSession({ simulator: { streamChunkCount: 8 } });
try {
  mkdirSync(OUT_DIR, { recursive: true });
  const { harness, page } = session;
  await harness.api('/profiles/main/prices', {
    method: 'PUT',
    body: JSON.stringify({ prices: [{ model: 'gpt-4o-mini', inputPer1M: 4000, outputPer1M: 8000 }], priceMultiplier: 1 }),
  });
  const token = await createClientToken(harness, 'claude-code');
  const send = (overrides: Record<string, unknown>) =>
    rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
      body: chatBody(overrides),
    });
  await send({
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'What is an airlock?' },
    ],
  });
  await send({ stream: true, model: 'deepseek-chat' });
  await send({ model: 'qwen-plus' });
  harness.simulator.script({ kind: 'status', status: 429, body: { error: { message: 'Too many requests', type: 'rate_limit_error' } } });
  await send({});
  await harness.log.flush();

  let count = 0;
  for (const scheme of SCHEMES) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const size of SIZES) {
      await page.setViewportSize(size);
      for (const view of VIEWS) {
        const screen = view === 'live-detail' ? 'live' : view;
        await page.goto(session.screenUrl(screen));
        await page.reload();
        await page.locator('nav[aria-label="Screens"] a[aria-current="page"]').waitFor();
        await page.locator('.state-loading').waitFor({ state: 'detached' });
        if (view === 'live-detail') {
          await page.locator('.request-row:not(.header)').first().click();
          await page.getByRole('region', { name: 'Request detail' }).locator('dl.overview').waitFor();
        }
        const file = path.join(OUT_DIR, `${view}-${size.width}x${size.height}-${scheme}.png`);
        await page.screenshot({ path: file });
        count += 1;
      }
    }
  }
  console.info(`${count} screenshots in ${path.relative(process.cwd(), OUT_DIR)}`);
} finally {
  await session.close();
}
