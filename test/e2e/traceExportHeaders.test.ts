import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatBody, JSON_HEADERS, rawRequest } from '../support/http.ts';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlpReceiver.ts';
import { findSentinel, TRACE_HEADER_SENTINEL } from '../support/sentinel.ts';
import { createClientToken, openWindowSession, type WindowSession } from './support/windowSession.ts';

let session: WindowSession;
let receiver: OtlpReceiver;
let clientToken = '';
/** Every control API answer the window got, searched for the header value. */
const answers: string[] = [];

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  session = await openWindowSession();
  clientToken = await createClientToken(session.harness, 'trace-agent');
  session.page.on('response', (response) => {
    if (response.url().includes('/_airlock/api/'))
      void response.text().then(
        (text) => answers.push(text),
        () => undefined,
      );
  });
});

afterAll(async () => {
  await session?.close();
  await receiver?.close();
});

async function chatId(): Promise<string> {
  const reply = await rawRequest(`${session.harness.proxy.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${clientToken}` },
    body: chatBody(),
  });
  expect(reply.status).toBe(200);
  return String(reply.headers['x-airlock-request-id']);
}

/** The headers of the export that carried this request's span. */
async function exportHeadersOf(requestId: string): Promise<Record<string, unknown>> {
  await expect.poll(() => receiver.rawBodies.findIndex((body) => body.includes(requestId))).toBeGreaterThanOrEqual(0);
  return receiver.requestHeaders[receiver.rawBodies.findIndex((body) => body.includes(requestId))] as Record<string, unknown>;
}

describe('trace export headers in the window, in Chromium', () => {
  it('adds a collector key from a password field, shows only its name and end, and removes it', async () => {
    const { page } = session;
    await page.goto(session.screenUrl('connect'));
    await page.getByLabel('OTLP endpoint').fill(receiver.url);
    await page.getByRole('button', { name: 'Save endpoint' }).click();
    await page.getByText(`Saved. Spans go to ${receiver.url} from the next request on.`).waitFor();

    const value = page.getByLabel('Header value');
    expect(await value.getAttribute('type')).toBe('password');
    await page.getByLabel('Header name').fill('X-Honeycomb-Team');
    await value.fill(TRACE_HEADER_SENTINEL);
    await page.getByRole('button', { name: 'Add header' }).click();
    await page.getByText('Saved x-honeycomb-team in the keychain. It goes with the spans of the next request on.').waitFor();
    const row = page.getByTestId('trace-header-x-honeycomb-team');
    await row.getByText('ends in …7Q2x').waitFor();
    expect(await value.inputValue()).toBe('');
    await page.locator('.trace-export-headers').scrollIntoViewIfNeeded();
    await session.shot('trace-export-headers');
    expect(await session.harness.secrets.get('trace-header:x-honeycomb-team')).toBe(TRACE_HEADER_SENTINEL);

    expect((await exportHeadersOf(await chatId()))['x-honeycomb-team']).toBe(TRACE_HEADER_SENTINEL);

    // A name that is no header is refused with the proxy's reason, and nothing is kept.
    await page.getByLabel('Header name').fill('api key');
    await value.fill('license-key-0001');
    await page.getByRole('button', { name: 'Add header' }).click();
    await page.getByText('name: "api key" is not a header name', { exact: false }).waitFor();
    expect(await page.getByTestId('trace-header-api key').count()).toBe(0);

    await row.getByRole('button', { name: 'Remove header x-honeycomb-team' }).click();
    await page.getByText(/^Removed x-honeycomb-team\./).waitFor();
    await row.waitFor({ state: 'detached' });
    expect(await session.harness.secrets.get('trace-header:x-honeycomb-team')).toBeNull();
    expect((await exportHeadersOf(await chatId()))['x-honeycomb-team']).toBeUndefined();

    expect(findSentinel(await page.content(), TRACE_HEADER_SENTINEL)).toBeNull();
    await expect.poll(() => answers.length).toBeGreaterThan(0);
    expect(findSentinel(answers.join('\n'), TRACE_HEADER_SENTINEL)).toBeNull();
  });
});
