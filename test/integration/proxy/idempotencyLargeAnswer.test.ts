import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CAPTURE_LIMIT_BYTES } from '../../../proxy/contracts/defaults.ts';
import { IdempotencyCache } from '../../../proxy/spend/idempotencyCache.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { buildBodiesRecord } from '../../../proxy/store/write/bodyRecord.ts';

/**
 * gpt-image-1 answers base64 only (no URL), so one image is an answer of megabytes, past the log's
 * 1 MiB copy of a body. A keyed creation's repeat must still get it: the image was made and billed.
 */
let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({ idempotency: new IdempotencyCache() });
});
afterAll(() => harness.close());

/** An images answer of one base64 image about `mib` MiB long, its bytes numbered so a cut or a mix-up shows. */
function imageAnswer(mib: number): string {
  const image = Buffer.alloc(Math.round(mib * 1024 * 1024 * 0.75));
  for (let index = 0; index < image.length; index += 1) image[index] = index % 251;
  return JSON.stringify({ created: 1, data: [{ b64_json: image.toString('base64') }], usage: { input_tokens: 12, output_tokens: 4160 } });
}

const IMAGE_BODY = JSON.stringify({ model: 'gpt-image-1', prompt: 'a lighthouse at dusk' });

function createImage(idempotencyKey: string) {
  return rawRequest(`${harness.proxy.url}/v1/images/generations`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, 'idempotency-key': idempotencyKey },
    body: IMAGE_BODY,
  });
}

const creations = (): number => harness.simulator.received.filter((received) => received.path === '/v1/images/generations').length;

describe('a keyed image creation whose answer is larger than the log keeps', () => {
  it('is answered whole to its repeat, from the first, while the log keeps only its own limit of it', async () => {
    const answer = imageAnswer(3);
    harness.simulator.script({ kind: 'text', path: '/images', status: 200, contentType: 'application/json', text: answer });
    const firstEnded = harness.nextEnd();
    const first = await createImage('large-1');
    expect(first.body).toBe(answer);
    const logged = (await firstEnded).bodies;
    expect(logged.responseBody?.length).toBe(CAPTURE_LIMIT_BYTES);
    expect(logged.responseBodyTruncated).toBe(true);

    const repeat = await createImage('large-1');
    expect(repeat.status, repeat.body.slice(0, 300)).toBe(200);
    expect(repeat.headers['x-airlock-idempotent-replay']).toBe('true');
    expect(repeat.body).toBe(answer);
    expect(creations()).toBe(1);
  });

  it("is read for its usage as it passed, as any answer past the log's limit is, not parsed whole on the forwarding thread", async () => {
    const answer = imageAnswer(3);
    harness.simulator.script({ kind: 'text', path: '/images', status: 200, contentType: 'application/json', text: answer });
    const parse = vi.spyOn(JSON, 'parse');
    try {
      const ended = harness.nextEnd();
      await createImage('large-read');
      const end = await ended;
      expect(end.usage).toMatchObject({ inputTokens: 12, outputTokens: 4160 });
      const longest = Math.max(0, ...parse.mock.calls.map(([text]) => (typeof text === 'string' ? text.length : 0)));
      expect(longest).toBeLessThan(CAPTURE_LIMIT_BYTES);
    } finally {
      parse.mockRestore();
    }
  });

  it('is kept for the repeat when its client left before the answer came', async () => {
    const answer = imageAnswer(2);
    const creationsBefore = creations();
    let release = (): void => undefined;
    const until = new Promise<void>((resolve) => {
      release = resolve;
    });
    harness.simulator.script({
      kind: 'text',
      path: '/images',
      status: 200,
      contentType: 'application/json',
      text: answer,
      pausedAt: { byte: 1000, until },
    });
    const firstEnded = harness.nextEnd();
    const gone = new Promise<void>((resolve) => {
      const req = request(`${harness.proxy.url}/v1/images/generations`, {
        method: 'POST',
        headers: { ...JSON_HEADERS, 'idempotency-key': 'left-large' },
      });
      req.on('error', () => undefined);
      // The client leaves once the answer has begun, as one whose read timeout ran out would.
      req.on('response', () => {
        req.destroy();
        resolve();
      });
      req.end(IMAGE_BODY);
    });
    await gone;
    release();
    await firstEnded;

    const repeat = await createImage('left-large');
    expect(repeat.status, repeat.body.slice(0, 300)).toBe(200);
    expect(repeat.body).toBe(answer);
    expect(creations()).toBe(creationsBefore + 1);
  });
});

describe("the log's copy of a keyed creation's answer, cut inside the gateway's key", () => {
  // A key without a known shape (no `sk-`): only the masks of the whole key, and of its forms, find it.
  const shapelessKey = 'Ab3kZ9qP2xW7mN4tR8vL1cY6hJ5dF0sG';

  it('holds no part of the key, as the log keeps it', async () => {
    const keyed = await startHarness({ idempotency: new IdempotencyCache(), apiKey: shapelessKey });
    try {
      // The answer echoes the key (a revised prompt quoting it) so that the log's 1 MiB cut falls 20 characters into it.
      const keptOfKey = 20;
      const head = '{"created":1,"data":[{"b64_json":"';
      const between = '","revised_prompt":"';
      const filler = CAPTURE_LIMIT_BYTES - keptOfKey - head.length - between.length;
      const answer = `${head}${'A'.repeat(filler)}${between}${shapelessKey} ${'B'.repeat(512 * 1024)}"}]}`;
      keyed.simulator.script({ kind: 'text', path: '/images', status: 200, contentType: 'application/json', text: answer });
      const ended = keyed.nextEnd();
      await rawRequest(`${keyed.proxy.url}/v1/images/generations`, {
        method: 'POST',
        headers: { ...JSON_HEADERS, 'idempotency-key': 'key-at-cut' },
        body: IMAGE_BODY,
      });
      const { bodies } = await ended;
      expect(bodies.responseBody?.length).toBe(CAPTURE_LIMIT_BYTES);
      // What the log thread stores of it, masked with the key as it masks every row.
      const stored = buildBodiesRecord(bodies, false, CAPTURE_LIMIT_BYTES, [shapelessKey]).responseBody ?? '';
      expect(stored.slice(-40)).not.toContain(shapelessKey.slice(0, 8));
    } finally {
      await keyed.close();
    }
  });
});
