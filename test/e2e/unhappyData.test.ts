import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatBody, JSON_HEADERS, type RawResponse, rawRequest } from '../support/http.ts';
import { findSentinel, SENTINEL_KEY } from '../support/sentinel.ts';
import { sidewaysOverflow } from './support/pageChecks.ts';
import { createClientToken, openWindowSession, type WindowSession } from './support/windowSession.ts';

/**
 * Data a gateway or client may send that the window must survive.
 */
let session: WindowSession;
let page: Page;
let token = '';
/** An image that, were it ever parsed as HTML, would be in the DOM with this id. */
const INJECTION = '<img src=x id=injected onerror="document.title=1">';
/** Reads "gpt-4o-mini" with its zero-width space hidden, and its override reverses the rest of its line. */
const SPOOFED_MODEL = '\u202Egpt\u200B-4o-mini';
const HIDDEN_CHARACTERS = /[\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/;
const LONG_MODEL = `m${'x'.repeat(1999)}`;

function chat(overrides: Record<string, unknown>, headers: Record<string, string> = {}) {
  return rawRequest(`${session.harness.proxy.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${token}`, ...headers },
    body: chatBody(overrides),
  });
}

const textOf = async (locator: Locator): Promise<string> => (await locator.textContent()) ?? '';

const detail = () => page.getByRole('region', { name: 'Request detail' });

/** Opens a request's detail as a new window on its link would, once its row is logged whole. */
async function openRequest(response: RawResponse): Promise<void> {
  await session.harness.loggedDetail(response);
  await page.goto('about:blank');
  await page.goto(session.screenUrl(`live/${requestIdOf(response)}`));
  await detail().locator('dl.overview').waitFor();
}

async function openScreen(screen: string): Promise<void> {
  await page.goto('about:blank');
  await page.goto(session.screenUrl(screen));
  await page.locator('nav[aria-label="Screens"] a[aria-current="page"]').waitFor();
  await expect.poll(() => page.locator('.state-loading').count()).toBe(0);
}

const requestIdOf = (response: RawResponse) => String(response.headers['x-airlock-request-id']);

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
    await openRequest(response);
    expect(await sidewaysOverflow(page)).toEqual([]);
    for (const screen of ['live', 'sessions', 'spend']) {
      await openScreen(screen);
      expect({ screen, overflow: await sidewaysOverflow(page) }).toEqual({ screen, overflow: [] });
    }
    await session.shot('70-long-model-spend');
  });

  it('shows the invisible characters of a model name instead of letting them reorder the text around it', async () => {
    const response = await chat({ model: SPOOFED_MODEL });
    await openRequest(response);
    const explanation = detail().locator('.error-explanation');
    await explanation.waitFor();
    await session.shot('71-spoofed-model-detail');
    // The gateway's message names the model; the sentence after it must still read left to right.
    for (const text of [await textOf(explanation), await textOf(detail().locator('dl.overview'))])
      expect(HIDDEN_CHARACTERS.exec(text)?.[0].codePointAt(0)?.toString(16) ?? null).toBeNull();
    expect(await textOf(explanation)).toContain('U+202E');
    await openScreen('live');
    const row = page.locator(`.request-row[data-request-id="${requestIdOf(response)}"] .model`);
    expect(HIDDEN_CHARACTERS.test(await textOf(row))).toBe(false);
    await openScreen('spend');
    expect(HIDDEN_CHARACTERS.test(await textOf(page.locator('.tables')))).toBe(false);
  });
});

describe('markup in what clients and gateways send', () => {
  it('is shown as text in every field, never parsed', async () => {
    session.harness.simulator.script({ kind: 'reply', content: INJECTION, model: INJECTION });
    const answered = await chat({ messages: [{ role: 'user', content: INJECTION }] }, { 'x-claude-code-session-id': INJECTION });
    session.harness.simulator.script({
      kind: 'status',
      status: 400,
      body: { error: { message: INJECTION, type: INJECTION, code: INJECTION } },
    });
    const refused = await chat({ model: INJECTION });
    for (const response of [answered, refused]) {
      await openRequest(response);
      await detail().getByText('Response body').click();
      await detail().getByText('Request body').click();
      await detail().locator('details.body-panel[open] .body-content').nth(1).waitFor();
      expect(await textOf(detail())).toContain(INJECTION);
      expect(await page.locator('#injected').count()).toBe(0);
    }
    for (const screen of ['live', 'sessions', 'spend', 'models']) {
      await openScreen(screen);
      expect({ screen, injected: await page.locator('#injected').count() }).toEqual({ screen, injected: 0 });
    }
    expect(await page.title()).toBe('Airlock');
  });
});

describe('a gateway that echoes the key', () => {
  it('never brings the key into the page or any control API answer', async () => {
    const answers: string[] = [];
    const pending: Promise<void>[] = [];
    page.on('response', (response) => {
      if (!response.url().includes('/_airlock/api/') || response.url().endsWith('/events')) return;
      pending.push(
        response.text().then(
          (text) => void answers.push(`${response.url()}\n${JSON.stringify(response.headers())}\n${text}`),
          () => undefined,
        ),
      );
    });
    await openScreen('live');
    session.harness.simulator.script({ kind: 'echoKey' });
    const echoed = await chat({});
    session.harness.simulator.script({ kind: 'echoKey' });
    const streamed = await chat({ stream: true });
    session.harness.simulator.script({ kind: 'modelFails', status: 401, code: 'invalid_api_key', quoteKey: true });
    const quoted = await chat({});
    for (const response of [echoed, streamed, quoted]) {
      expect(findSentinel(response.body)).toBeNull();
      await openRequest(response);
      for (const panel of ['Request body', 'Response body', 'Stream events']) {
        const summary = detail().locator('details.body-panel > summary', { hasText: panel });
        if ((await summary.count()) > 0) await summary.click();
      }
      await detail().getByText('Response headers').click();
      expect(findSentinel(await page.content())).toBeNull();
      expect(findSentinel(await page.title())).toBeNull();
    }
    for (const screen of ['spend', 'sessions', 'profiles', 'models', 'connect']) await openScreen(screen);
    await Promise.all(pending);
    expect(answers.length).toBeGreaterThan(10);
    expect(answers.filter((answer) => findSentinel(answer) !== null).map((answer) => answer.split('\n')[0])).toEqual([]);
    expect(answers.some((answer) => answer.includes(SENTINEL_KEY.slice(-4)))).toBe(true);
    // The quoted key was a rejection: setting the key again closes the breaker it opened.
    await session.harness.api('/profiles/main/key', { method: 'PUT', body: JSON.stringify({ key: SENTINEL_KEY }) });
  });
});

describe('large and broken bodies', () => {
  it('shows a body that is not valid JSON as the text recorded, said to be no JSON, with the key masked', async () => {
    // Refused before the gateway (400), its body was read whole: the detail showed "none recorded".
    const broken = `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"my key is ${SENTINEL_KEY}"}],, trailing`;
    const refused = await rawRequest(`${session.harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
      body: broken,
    });
    expect(refused.status).toBe(400);
    await openRequest(refused);
    expect(await textOf(detail())).not.toContain('Request body: none recorded');
    await detail().locator('details.body-panel summary', { hasText: 'Request body' }).click();
    const body = detail().locator('details.body-panel[open] .body-content').first();
    await body.locator('pre.body-text').waitFor();
    expect(await textOf(body.locator('.body-note'))).toBe('Not valid JSON: shown as the text recorded');
    expect(await textOf(body.locator('pre.body-text'))).toContain('"content":"my key is [redacted]"}],, trailing');
    expect(findSentinel(await page.content())).toBeNull();
  });

  it('opens a 5 MB request, a body that is not UTF-8 and a 20,000-event stream without hanging', async () => {
    const big = await chat({ messages: [{ role: 'user', content: 'y'.repeat(5 * 1024 * 1024) }] });
    expect(big.status).toBe(200);
    await openRequest(big);
    // Cut at the log's capture limit: the conversation says why it is not shown.
    await detail().getByText('The request body was cut when logged').waitFor();
    await detail().locator('details.body-panel summary', { hasText: 'Request body' }).click();
    await detail().locator('details.body-panel[open] pre.body-text, details.body-panel[open] .json-tree').first().waitFor();
    expect(await textOf(detail().locator('details.body-panel summary', { hasText: 'Request body' }))).toContain('truncated');

    const latin1 = await rawRequest(`${session.harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
      body: Buffer.concat([
        Buffer.from('{"model":"gpt-4o-mini","messages":[{"role":"user","content":"caf'),
        Buffer.from([0xe9, 0xff]),
        Buffer.from('"}]}'),
      ]),
    });
    await openRequest(latin1);
    await detail().getByText('Request body').click();
    await detail().locator('details.body-panel[open] .body-content').first().waitFor();

    const events = Array.from(
      { length: 20_000 },
      (_, index) => `data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"${index % 10}"}}]}\n\n`,
    );
    session.harness.simulator.script({ kind: 'bodyChunks', chunks: [...events, 'data: [DONE]\n\n'] });
    const stream = await chat({ stream: true });
    expect(stream.status).toBe(200);
    await openRequest(stream);
    await detail().getByText('Stream events').click();
    // The log keeps the stream's first MiB (about half its events here), and the table shows each one.
    await detail().getByRole('region', { name: 'Stream events' }).locator('tbody tr').last().waitFor();
    expect(await textOf(detail().locator('details.body-panel summary', { hasText: 'Stream events' }))).toContain('truncated');
    await session.shot('72-many-events');
  });
});
