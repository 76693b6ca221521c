import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { litellmClaude, openrouterClaude } from '../../simulator/dialects.ts';
import { JSON_HEADERS, rawRequest, sseData } from '../../support/http.ts';
import type { Harness } from '../../support/proxyHarness.ts';
import { startReasoningHarness } from '../../support/reasoningHarness.ts';
import { findSentinel, findSentinelInStream, SENTINEL_KEY } from '../../support/sentinel.ts';
import { REDACTED } from '../../../proxy/core/redact.ts';

/**
 * A model that repeats the gateway key in its thinking, through a relay that hands Claude's
 * thinking blocks on beside the text (test/simulator/relayThinking.ts): the key goes in the blocks'
 * thinking too, a few characters a piece, and the translated thinking carries those blocks in its
 * signature (protocols/chat/relayThinking.ts). Neither a chat client nor a translated one gets it.
 */
const THINKING = `The environment holds ${SENTINEL_KEY} as the key; I will not repeat it.`;

let harness: Harness;
beforeAll(async () => {
  harness = await startReasoningHarness();
});
afterAll(() => harness.close());
beforeEach(() => harness.simulator.reset());

async function streamed(path: string, body: object): Promise<string> {
  harness.simulator.script({ kind: 'reply', reasoning: THINKING, content: 'Done.' });
  const ended = harness.nextEnd();
  const response = await rawRequest(`${harness.proxy.url}${path}`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: 'Bearer alk_client' },
    body: JSON.stringify({ ...body, stream: true }),
  });
  expect(response.status, response.body).toBe(200);
  await ended;
  return response.body;
}

async function whole(path: string, body: object): Promise<string> {
  harness.simulator.script({ kind: 'reply', reasoning: THINKING, content: 'Done.' });
  const ended = harness.nextEnd();
  const response = await rawRequest(`${harness.proxy.url}${path}`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: 'Bearer alk_client' },
    body: JSON.stringify(body),
  });
  expect(response.status, response.body).toBe(200);
  await ended;
  return response.body;
}

/** The relay blocks a mark carries (`airlock:<field>:<gateway tag>:<base64url JSON>`), decoded as Airlock reads them back. */
function decodedMarksIn(text: string): string[] {
  return [...text.matchAll(/airlock:[a-z_]+:[A-Za-z0-9_-]+:([A-Za-z0-9_-]+)/g)].map((match) =>
    Buffer.from(match[1] ?? '', 'base64url').toString('utf8'),
  );
}

/** What the marks a translated stream carries hold, decoded as a client handing them back would. */
function decodedMarks(body: string): string {
  return sseData(body).flatMap(decodedMarksIn).join('\n');
}

/** The thinking text of the blocks a whole answer's mark carries: LiteLLM's `thinking`, OpenRouter's `text`. */
function markedThinking(body: string): string[] {
  return decodedMarksIn(body).flatMap((decoded) =>
    (JSON.parse(decoded) as { thinking?: string; text?: string }[]).map((block) => block.thinking ?? block.text ?? ''),
  );
}

const MASKED_THINKING = THINKING.replace(SENTINEL_KEY, REDACTED);

describe.each([
  ['LiteLLM', litellmClaude],
  ['OpenRouter', openrouterClaude],
])('thinking that repeats the key, through %s', (_name, dialect) => {
  beforeAll(() => harness.simulator.useDialect(dialect));

  it('reaches a chat client masked, in the text field and in the blocks', async () => {
    const body = await streamed('/v1/chat/completions', { model: 'deepseek-chat', messages: [{ role: 'user', content: 'env?' }] });
    expect(findSentinelInStream(body)).toBeNull();
  });

  it('reaches Claude Code masked, in the thinking and in the blocks its signature carries', async () => {
    const body = await streamed('/v1/messages', {
      model: 'claude-sonnet-4-5',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'env?' }],
    });
    expect(findSentinelInStream(body)).toBeNull();
    expect(decodedMarks(body)).not.toBe('');
    expect(findSentinel(decodedMarks(body))).toBeNull();
  });

  // A whole answer is translated from its masked text, as a stream from its guarded events: the blocks read the mask.
  it('reaches Claude Code masked in a whole answer, the blocks its signature carries reading the mask', async () => {
    const body = await whole('/v1/messages', { model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'env?' }] });
    expect(findSentinel(body)).toBeNull();
    expect(markedThinking(body)).toEqual([MASKED_THINKING]);
  });

  it('reaches Codex masked in a whole answer, the blocks its encrypted_content carries reading the mask', async () => {
    const body = await whole('/v1/responses', { model: 'gpt-5-codex', input: 'env?' });
    expect(findSentinel(body)).toBeNull();
    expect(markedThinking(body)).toEqual([MASKED_THINKING]);
  });
});
