import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEGACY_COMPLETION_MODEL } from '../../simulator/completions.ts';
import { embedText } from '../../simulator/embeddings.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';
import { KEPT_MEMBER_BYTES } from '../../../proxy/forward/passedAnswerMembers.ts';
import { byteEstimateTokens, estimateTextTokens } from '../../../proxy/spend/estimate.ts';

/** The least the log may keep of each body (the `bodyCaptureKiB` setting's minimum, 16 KiB). */
const CAPTURE_LIMIT_BYTES = 16 * 1024;
const EMBEDDING_MODEL = 'text-embedding-3-small';
const IMAGE_MODEL = 'gpt-image-1';
const IMAGE_PRICE_PER_CALL = 0.04;
const PRICES = [
  { model: EMBEDDING_MODEL, inputPer1M: 0.02 },
  { model: IMAGE_MODEL, perCall: IMAGE_PRICE_PER_CALL },
  { model: LEGACY_COMPLETION_MODEL, inputPer1M: 1.5, outputPer1M: 2 },
];
/** A RAG indexing batch: enough chunks that the vectors pass what the log keeps. */
const CHUNKS = Array.from({ length: 160 }, (_, index) => `chunk ${index} of the handbook`);
/** A completion's text about twice what the log keeps. */
const LONG_COMPLETION = Array.from({ length: 640 }, (_, line) => `line ${line}: the story goes on and on.`).join('\n');

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness({ profile: { prices: PRICES }, captureLimitBytes: CAPTURE_LIMIT_BYTES });
});
afterAll(() => harness?.close());

type RowEnd = Awaited<ReturnType<Harness['nextEnd']>>;

async function post(path: string, body: object): Promise<{ answer: Record<string, unknown>; end: RowEnd }> {
  const ended = harness.nextEnd();
  const response = await rawRequest(`${harness.proxy.url}${path}`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${SENTINEL_KEY}` },
    body: JSON.stringify(body),
  });
  expect(response.status, response.body).toBe(200);
  const end = await ended;
  // The log's copy was cut: what is billed did not come from it.
  expect(end.bodies.responseBodyTruncated).toBe(true);
  return { answer: JSON.parse(response.body) as Record<string, unknown>, end };
}

/** An embeddings answer as the text a gateway sends, its members in the order given. */
function embeddingsAnswerText(usageFirst: boolean, promptTokens: number): string {
  const data = CHUNKS.map((text, index) => ({ object: 'embedding', index, embedding: embedText(text) }));
  const usage = { prompt_tokens: promptTokens, total_tokens: promptTokens };
  const answer = usageFirst
    ? { object: 'list', usage, model: EMBEDDING_MODEL, data }
    : { object: 'list', data, model: EMBEDDING_MODEL, usage };
  return JSON.stringify(answer);
}

/**
 * An embeddings or legacy completion answer passes through as it comes; the log keeps its start.
 * Its usage was read only from the log's copy, so one past the limit was billed from an estimate of
 * the request (an embeddings batch of ~30 vectors of 1536 floats at the default 1 MiB), and a
 * completion without usage at no output at all.
 */
describe('an answer passed through, larger than the log keeps', () => {
  it("bills an embeddings batch at the gateway's reported usage", async () => {
    const { answer, end } = await post('/v1/embeddings', { model: EMBEDDING_MODEL, input: CHUNKS });
    const reported = (answer.usage as { prompt_tokens: number }).prompt_tokens;
    expect(end.usageSource).toBe('reported');
    expect(end.usage).toMatchObject({ inputTokens: reported, outputTokens: 0 });
  });

  // JSON object members have no order (RFC 8259 §4), so a gateway may put usage before the vectors.
  it.each([
    ['after the vectors', false],
    ['before the vectors', true],
  ])('reads usage placed %s', async (_where, usageFirst) => {
    // A count the request's bytes would never give: only the gateway's answer states it.
    const promptTokens = CHUNKS.length * 7 + 3;
    harness.simulator.script({
      kind: 'text',
      status: 200,
      contentType: 'application/json',
      text: embeddingsAnswerText(usageFirst, promptTokens),
    });
    const { end } = await post('/v1/embeddings', { model: EMBEDDING_MODEL, input: CHUNKS });
    expect(end.usageSource).toBe('reported');
    expect(end.usage).toMatchObject({ inputTokens: promptTokens, outputTokens: 0 });
  });

  async function completionRow(text: string): Promise<{ end: RowEnd; answerBytes: number }> {
    const completion = {
      id: 'cmpl-large',
      object: 'text_completion',
      created: 1,
      model: LEGACY_COMPLETION_MODEL,
      choices: [{ index: 0, text, logprobs: null, finish_reason: 'stop' }],
    };
    const answerText = JSON.stringify(completion);
    harness.simulator.script({ kind: 'text', status: 200, contentType: 'application/json', text: answerText });
    const { answer, end } = await post('/v1/completions', { model: LEGACY_COMPLETION_MODEL, prompt: 'Once upon a time' });
    expect(answer.choices).toEqual(completion.choices);
    expect(end.usageSource).toBe('estimated');
    expect(end.costCredits).toBeGreaterThan(0);
    return { end, answerBytes: Buffer.byteLength(answerText) };
  }

  it('estimates a legacy completion without usage from all the text it wrote', async () => {
    const { end } = await completionRow(LONG_COMPLETION);
    expect(end.usage?.outputTokens).toBe(estimateTextTokens(LONG_COMPLETION));
  });

  it('estimates a completion too large to keep from its bytes, as text past the tokenizer limit is', async () => {
    const hugeText = LONG_COMPLETION.repeat(Math.ceil((KEPT_MEMBER_BYTES * 1.2) / LONG_COMPLETION.length));
    const { end, answerBytes } = await completionRow(hugeText);
    // Its text's bytes, with at most the JSON around it.
    expect(end.usage?.outputTokens).toBeGreaterThanOrEqual(byteEstimateTokens(Buffer.byteLength(hugeText)));
    expect(end.usage?.outputTokens).toBeLessThanOrEqual(byteEstimateTokens(answerBytes));
  });

  // gpt-image-1 answers every image as base64 (`b64_json`; `url` unsupported), per openai-node's Images.Image type docs.
  it('bills each image of an answer too large to keep', async () => {
    const images = 3;
    const b64 = Buffer.alloc(KEPT_MEMBER_BYTES / 2, 7).toString('base64');
    const answer = { created: 1, data: Array.from({ length: images }, () => ({ b64_json: b64, url: null })) };
    harness.simulator.script({ kind: 'text', status: 200, contentType: 'application/json', text: JSON.stringify(answer) });
    const { end } = await post('/v1/images/generations', { model: IMAGE_MODEL, prompt: 'three cats', n: images });
    expect(end.costCredits).toBeCloseTo(images * IMAGE_PRICE_PER_CALL, 12);
  });
});
