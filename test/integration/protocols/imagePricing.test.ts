import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';

/**
 * Image models priced per image: OpenAI bills each image made, and relays bill the request's `n`
 * times the model's price (new-api's image relay multiplies its price by `imageRequest.N`).
 */
describe('an image generation priced per call', () => {
  let harness: Harness;
  let client: OpenAI;

  beforeAll(async () => {
    harness = await startHarness({
      profile: {
        prices: [
          { model: 'gpt-4o-mini', perCall: 0.04 },
          { model: 'text-embedding-3-small', perCall: 0.001 },
        ],
      },
    });
    client = new OpenAI({ baseURL: `${harness.proxy.url}/v1`, apiKey: 'client-placeholder', maxRetries: 0 });
  });
  afterAll(() => harness.close());

  it('costs the price once per image it made', async () => {
    const ended = harness.nextEnd();
    const images = await client.images.generate({ model: 'gpt-4o-mini', prompt: 'three cats', n: 3 });
    expect(images.data).toHaveLength(3);
    expect((await ended).costCredits).toBeCloseTo(0.12, 12);
  });

  it('is not multiplied for answers whose data are no images (an embedding per input)', async () => {
    const ended = harness.nextEnd();
    await client.embeddings.create({ model: 'text-embedding-3-small', input: ['a', 'b', 'c'] });
    expect((await ended).costCredits).toBeCloseTo(0.001, 12);
  });
});
