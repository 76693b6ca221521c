import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSpendGate } from '../../../proxy/spend/spendGate.ts';
import { SpendLedger } from '../../../proxy/spend/spendLedger.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { PLAIN_HINT } from '../../../proxy/contracts/cli.ts';

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

describe('an image generation of n images under a daily cap', () => {
  let harness: Harness;
  let client: OpenAI;

  beforeAll(async () => {
    harness = await startHarness({
      profile: { budget: { dailyCredits: 0.1 }, prices: [{ model: 'gpt-4o-mini', perCall: 0.04 }] },
      spendGate: createSpendGate({ commandHint: PLAIN_HINT, ledger: new SpendLedger(), clientBudget: () => undefined }),
    });
    client = new OpenAI({ baseURL: `${harness.proxy.url}/v1`, apiKey: 'client-placeholder', maxRetries: 0 });
  });
  afterAll(() => harness.close());

  it('is refused before sending when its n images would cross the cap', async () => {
    // Three images at 0.04 are 0.12, past the 0.1 cap: one price counted would have let it through.
    await expect(client.images.generate({ model: 'gpt-4o-mini', prompt: 'three cats', n: 3 })).rejects.toMatchObject({ status: 402 });
    expect(harness.simulator.received.filter((received) => received.path.endsWith('/images/generations'))).toHaveLength(0);
    const images = await client.images.generate({ model: 'gpt-4o-mini', prompt: 'two cats', n: 2 });
    expect(images.data).toHaveLength(2);
  });
});

describe('an image edit of n images under a daily cap', () => {
  let harness: Harness;
  let client: OpenAI;

  beforeAll(async () => {
    harness = await startHarness({
      profile: { budget: { dailyCredits: 0.1 }, prices: [{ model: 'gpt-4o-mini', perCall: 0.04 }] },
      spendGate: createSpendGate({ commandHint: PLAIN_HINT, ledger: new SpendLedger(), clientBudget: () => undefined }),
    });
    client = new OpenAI({ baseURL: `${harness.proxy.url}/v1`, apiKey: 'client-placeholder', maxRetries: 0 });
  });
  afterAll(() => harness.close());

  it('is refused before sending when the n images its form asks for would cross the cap', async () => {
    // OpenAI's image edit is a multipart form: its `n` is a form field, and each image is billed.
    const edit = (n: number) =>
      client.images.edit({
        model: 'gpt-4o-mini',
        prompt: 'add a hat',
        n,
        image: new File([Buffer.from('PNG image')], 'cat.png', { type: 'image/png' }),
      });
    await expect(edit(3)).rejects.toMatchObject({ status: 402 });
    expect(harness.simulator.received.filter((received) => received.path.endsWith('/images/edits'))).toHaveLength(0);
    expect((await edit(2)).data).toHaveLength(2);
  });
});
