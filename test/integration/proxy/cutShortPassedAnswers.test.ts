import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { STREAM_ENDED_EARLY_CODE } from '../../../proxy/core/errorExplanations.ts';
import type { Fault } from '../../simulator/types.ts';
import { JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';

/**
 * A JSON answer passed through as it arrives (embeddings, files: anything not read whole) whose
 * body breaks off or ends cut short. Its headers are out before its end, so the client can no
 * longer be answered an error: it must never see a clean end (its SDK would parse broken JSON as
 * an answer), and the row must say the answer failed and bill it as a broken answer.
 */
let whole: Harness;
/** Keeps a few hundred bytes of each body: a longer answer is read as it passes (passedAnswerMembers.ts), not from the log's copy. */
let shortCapture: Harness;
beforeAll(async () => {
  [whole, shortCapture] = await Promise.all([startHarness(), startHarness({ captureLimitBytes: 256 })]);
});
afterAll(() => Promise.all([whole.close(), shortCapture.close()]));
beforeEach(() => {
  whole.simulator.reset();
  shortCapture.simulator.reset();
});

const REQUEST = { model: 'text-embedding-3-small', input: 'hi' };
const ANSWER = JSON.stringify({
  object: 'list',
  data: [{ object: 'embedding', index: 0, embedding: Array.from({ length: 256 }, (_, index) => index / 1000) }],
  model: 'text-embedding-3-small',
  usage: { prompt_tokens: 3, total_tokens: 3 },
});
const HALF = Math.floor(ANSWER.length / 2);
const answered = (fault: Partial<Extract<Fault, { kind: 'text' }>>): Fault => ({
  kind: 'text',
  status: 200,
  contentType: 'application/json',
  text: ANSWER,
  ...fault,
});

async function embed(harness: Harness) {
  const ended = harness.nextEnd();
  const response = await rawRequest(`${harness.proxy.url}/v1/embeddings`, {
    method: 'POST',
    headers: JSON_HEADERS,
    body: JSON.stringify(REQUEST),
  }).then(
    (got) => ({ ended: 'cleanly' as const, body: got.body }),
    (error: Error) => ({ ended: 'broken off' as const, error: error.message }),
  );
  return { response, end: await ended };
}

/** The answer's headers as the client got them, for a request with no body to check. */
async function headersOf(harness: Harness, method: string) {
  const ended = harness.nextEnd();
  const got = await rawRequest(`${harness.proxy.url}/v1/files/file-1`, { method });
  await ended;
  return got.headers;
}

describe.each([
  ['the log keeps it whole', () => whole],
  ['it is longer than the log keeps', () => shortCapture],
])('a JSON answer passed through, when %s', (_name, harnessOf) => {
  it.each<[string, Partial<Extract<Fault, { kind: 'text' }>>, string | null]>([
    // The gateway's connection ends short of the Content-Length it declared: undici fails the body.
    ['closed short of its Content-Length', { closeAfterBytes: HALF }, null],
    ['reset short of its Content-Length', { resetAfterBytes: HALF }, null],
    // A relay ending its own body in order when its copy of the answer broke (wso2/api-manager#5231):
    // only the JSON tells, chunked or with a Content-Length of what it sent.
    ['chunked, its JSON cut short and ended in order', { chunked: true, text: ANSWER.slice(0, HALF) }, STREAM_ENDED_EARLY_CODE],
    ['its JSON cut short under a Content-Length of what was sent', { text: ANSWER.slice(0, HALF) }, STREAM_ENDED_EARLY_CODE],
  ])('%s: the client sees it broken off, the row a failure billed as a broken answer', async (_case, fault, errorCode) => {
    const harness = harnessOf();
    harness.simulator.script(answered(fault));
    const { response, end } = await embed(harness);
    expect(response.ended).toBe('broken off');
    expect(end.errorClass).toBe('stream_interrupted');
    expect(end.errorCode).toBe(errorCode);
    expect(end.usageSource).toBe('estimated');
    expect(end.usage?.inputTokens).toBeGreaterThan(0);
  });

  it('whole, chunked or not, reaches the client as it came, its usage read', async () => {
    const harness = harnessOf();
    for (const fault of [{}, { chunked: true } as const]) {
      harness.simulator.script(answered(fault));
      const { response, end } = await embed(harness);
      expect(response).toEqual({ ended: 'cleanly', body: ANSWER });
      expect(end).toMatchObject({ errorClass: null, usageSource: 'reported', usage: { inputTokens: 3 } });
    }
  });
});

describe('the framing of a JSON answer passed through', () => {
  it('goes without its Content-Length, so a cut one cannot reach a clean end by its length', async () => {
    whole.simulator.script(answered({}));
    const headers = await headersOf(whole, 'GET');
    expect(headers['content-length']).toBeUndefined();
    expect(headers['transfer-encoding']).toBe('chunked');
  });

  it('keeps it on a HEAD answer, which has no body to check', async () => {
    whole.simulator.script(answered({}));
    const headers = await headersOf(whole, 'HEAD');
    expect(headers['content-length']).toBe(String(Buffer.byteLength(ANSWER)));
  });
});

describe('through the OpenAI SDK', () => {
  it('an embeddings answer cut short fails the call, never read as an answer of broken JSON', async () => {
    whole.simulator.script(answered({ chunked: true, text: ANSWER.slice(0, HALF) }));
    const ended = whole.nextEnd();
    const client = new OpenAI({ baseURL: `${whole.proxy.url}/v1`, apiKey: 'alk_client', maxRetries: 0 });
    const failure = await client.embeddings.create(REQUEST).then(
      () => null,
      (error: unknown) => error as Error,
    );
    expect(failure).not.toBeNull();
    expect(failure).not.toBeInstanceOf(SyntaxError);
    expect((await ended).errorCode).toBe(STREAM_ENDED_EARLY_CODE);
  });
});
