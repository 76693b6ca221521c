import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestPage } from '../../proxy/contracts/requests.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../support/http.ts';
import { findSentinel } from '../support/sentinel.ts';
import { axeViolations } from './support/pageChecks.ts';
import { createClientToken, openWindowSession, type WindowSession } from './support/windowSession.ts';

let session: WindowSession;
let page: Page;
let clientToken = '';

beforeAll(async () => {
  session = await openWindowSession();
  page = session.page;
  clientToken = await createClientToken(session.harness, 'e2e-failures');
});

afterAll(async () => {
  await session?.close();
});

async function chat(model: string): Promise<number> {
  const answer = await rawRequest(`${session.harness.proxy.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${clientToken}` },
    body: chatBody({ model }),
  });
  return answer.status;
}

/** Opens the newest request in the Live screen and returns the detail's error explanation. */
async function newestExplanation() {
  const page1 = (await (await session.harness.api('/requests?limit=1')).json()) as RequestPage;
  const newestId = page1.items[0]?.id ?? '';
  await page.goto(session.screenUrl('live'));
  await page.reload();
  await page.locator(`[data-request-id="${newestId}"]`).click();
  const detail = page.getByRole('region', { name: 'Request detail' });
  const explanation = detail.locator('section.error-explanation');
  await explanation.waitFor();
  return explanation;
}

/** The text under the explanation's term `term` ("How to fix it"). */
async function explained(explanation: Awaited<ReturnType<typeof newestExplanation>>, term: string): Promise<string> {
  return (await explanation.locator(`dt:text-is("${term}") + dd`).textContent()) ?? '';
}

/**
 * Each failure a gateway's new kinds of answer leave in the log, opened in the window: the detail
 * says the cause and a fix that fits it, holds no key, and passes the accessibility rules.
 */
describe('the request detail of failures', () => {
  it("a firewall's 403 page in front of the gateway: the fix is the network, not the request", async () => {
    session.harness.simulator.script({ kind: 'errorPage', status: 403, server: 'cloudflare' });
    expect(await chat('gpt-4o-mini')).toBe(403);
    const explanation = await newestExplanation();
    const fix = await explained(explanation, 'How to fix it');
    expect(fix).toContain('firewall');
    expect(fix).not.toContain('Fix the request');
    // The message above it, the client's own, does not contradict that fix either.
    expect(await explanation.locator('.error-message').textContent()).not.toContain('Fix the request');
    expect(findSentinel(await page.content())).toBeNull();
    expect(await axeViolations(page)).toEqual([]);
    await session.shot('90-detail-firewall-403');
  });

  it('a prompt too long for the model, as a chat gateway words it', async () => {
    session.harness.simulator.script({
      kind: 'status',
      status: 400,
      body: {
        error: {
          message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 200000 tokens.",
          type: 'invalid_request_error',
          code: 'context_length_exceeded',
        },
      },
    });
    expect(await chat('gpt-4o')).toBe(400);
    const explanation = await newestExplanation();
    expect(await explanation.locator('.error-message').textContent()).toContain('maximum context length is 128000 tokens');
    expect(await explained(explanation, 'How to fix it')).toMatch(/shorten the conversation/);
    expect(await axeViolations(page)).toEqual([]);
  });

  it('an answer that broke after its 200', async () => {
    session.harness.simulator.script({
      kind: 'text',
      status: 200,
      contentType: 'application/json',
      text: JSON.stringify({ choices: [{ message: { role: 'assistant', content: 'half of it' } }] }),
      resetAfterBytes: 20,
    });
    expect(await chat('deepseek-chat')).toBeGreaterThanOrEqual(500);
    const explanation = await newestExplanation();
    expect(await explanation.locator('dt').allTextContents()).toEqual(['What it means', 'How to fix it', 'Retry']);
    expect(findSentinel(await page.content())).toBeNull();
    expect(await axeViolations(page)).toEqual([]);
    await session.shot('91-detail-broken-after-200');
  });
});
