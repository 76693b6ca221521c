import OpenAI, { toFile } from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { createSpendGate } from '../../../proxy/spend/spendGate.ts';
import { SpendLedger } from '../../../proxy/spend/spendLedger.ts';
import { JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { PLAIN_HINT } from '../../../proxy/contracts/cli.ts';
import { DEFAULT_MODEL_IDS } from '../../simulator/models.ts';
import type { Budget } from '../../../proxy/contracts/profile.ts';

/** OpenAI's list prices: sora-2 at $0.10 a second of video, tts-1 at $15 per 1M characters. */
const SORA_PER_SECOND = 0.1;
const TTS_PER_MILLION_CHARACTERS = 15;

let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

async function start(budget?: Budget): Promise<{ harness: Harness; client: OpenAI }> {
  harness = await startHarness({
    simulator: { models: [...DEFAULT_MODEL_IDS, 'sora-2'] },
    profile: {
      ...(budget ? { budget } : {}),
      prices: [
        { model: 'sora-2', perVideoSecond: SORA_PER_SECOND },
        { model: 'tts-1', perMillionCharacters: TTS_PER_MILLION_CHARACTERS },
      ],
    },
    spendGate: createSpendGate({ commandHint: PLAIN_HINT, ledger: new SpendLedger(), clientBudget: () => undefined }),
  });
  return { harness, client: new OpenAI({ baseURL: `${harness.proxy.url}/v1`, apiKey: 'client-placeholder', maxRetries: 0 }) };
}

const sent = (pathEnd: string) => harness!.simulator.received.filter((request) => request.path.endsWith(pathEnd)).length;

describe('a video creation priced per second', () => {
  it('costs the seconds it asks for, 4 when it asks none, as the gateway bills them', async () => {
    const { harness, client } = await start();
    const eight = harness.nextEnd();
    const video = await client.videos.create({ model: 'sora-2', prompt: 'a lighthouse at dusk', seconds: '8' });
    expect(video.seconds).toBe('8');
    expect((await eight).costCredits).toBeCloseTo(8 * SORA_PER_SECOND, 12);

    const unstated = harness.nextEnd();
    const reply = await rawRequest(`${harness.proxy.url}/v1/videos`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: JSON.stringify({ model: 'sora-2', prompt: 'a lighthouse at dawn' }),
    });
    expect(JSON.parse(reply.body).seconds).toBe('4');
    expect((await unstated).costCredits).toBeCloseTo(4 * SORA_PER_SECOND, 12);
  });

  it('counts its seconds against a daily cap before sending', async () => {
    const { harness, client } = await start({ dailyCredits: 1 });
    // Twelve seconds cost 1.2 credits: past the cap, nothing is sent (before, a video was one call priced at nothing).
    await expect(client.videos.create({ model: 'sora-2', prompt: 'a storm', seconds: '12' })).rejects.toMatchObject({ status: 402 });
    expect(sent('/videos')).toBe(0);

    const ended = harness.nextEnd();
    await client.videos.create({ model: 'sora-2', prompt: 'a storm', seconds: '8' });
    expect((await ended).costCredits).toBeCloseTo(0.8, 12);

    // Four more seconds by default would make 1.2: refused, the refusal naming what it asked for.
    const refused = await rawRequest(`${harness.proxy.url}/v1/videos`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: JSON.stringify({ model: 'sora-2', prompt: 'a calm sea' }),
    });
    expect(refused.status, refused.body).toBe(402);
    expect(JSON.parse(refused.body).error.message).toContain('the video seconds or characters it asks for cost 0.4 credits');
    expect(sent('/videos')).toBe(1);
  });
});

describe('a video creation whose seconds cannot be counted, under a cap', () => {
  it.each([
    ['0', 0],
    ['negative', -4],
    ['not a number', 'twelve'],
    ['NaN', 'NaN'],
  ])('(%s) is refused, saying its length is unread and not that its model has no price', async (_, seconds) => {
    const { harness } = await start({ dailyCredits: 5 });
    const reply = await rawRequest(`${harness.proxy.url}/v1/videos`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: JSON.stringify({ model: 'sora-2', prompt: 'a storm', seconds }),
    });
    expect(reply.status, reply.body).toBe(402);
    const message: string = JSON.parse(reply.body).error.message;
    expect(message).toContain('priced per video second');
    expect(message).toContain('states no length Airlock can read');
    expect(message).not.toContain('has no price');
    expect(sent('/videos')).toBe(0);
  });
});

describe('a video model without a price, under a cap', () => {
  it('is refused with the price field its creations are billed by', async () => {
    const { harness } = await start({ dailyCredits: 5 });
    const reply = await rawRequest(`${harness.proxy.url}/v1/videos`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: JSON.stringify({ model: 'sora-2-pro', prompt: 'a storm', seconds: '8' }),
    });
    expect(reply.status, reply.body).toBe(402);
    expect(JSON.parse(reply.body).error.message).toContain('{"model": "sora-2-pro", "perVideoSecond": ...}');
  });
});

/** A creation sent as OpenAI's form, its reference image a file part before the fields a price reads. */
function videoForm(fields: [string, string][]): FormData {
  const form = new FormData();
  form.append('input_reference', new Blob([Buffer.alloc(64 * 1024, 7)], { type: 'image/png' }), 'first-frame.png');
  for (const [name, value] of fields) form.append(name, value);
  return form;
}

describe('a video creation sent as a form with a reference image', () => {
  it('counts the seconds it asks for after the image', async () => {
    const { harness, client } = await start();
    const ended = harness.nextEnd();
    const reference = await toFile(Buffer.alloc(64 * 1024, 7), 'first-frame.png', { type: 'image/png' });
    const video = await client.videos.create({ model: 'sora-2', prompt: 'a lighthouse', seconds: '12', input_reference: reference });
    expect(video.seconds).toBe('12');
    expect((await ended).costCredits).toBeCloseTo(12 * SORA_PER_SECOND, 12);
  });

  it('is refused when it names its seconds twice: the gateway may bill the last, where the first was counted', async () => {
    const { harness } = await start({ dailyCredits: 1 });
    const reply = await fetch(`${harness.proxy.url}/v1/videos`, {
      method: 'POST',
      body: videoForm([
        ['model', 'sora-2'],
        ['prompt', 'a storm'],
        ['seconds', '4'],
        ['seconds', '12'],
      ]),
    });
    const text = await reply.text();
    expect(reply.status, text).toBe(400);
    expect(JSON.parse(text).error.message).toContain('"seconds" field more than once');
    expect(sent('/videos')).toBe(0);
  });
});

describe('a video form with more parts than Airlock reads', () => {
  it('is not counted at the default 4 seconds when its seconds come after them', async () => {
    const { harness } = await start({ dailyCredits: 1 });
    const filler = Array.from({ length: 300 }, (_, index): [string, string] => [`metadata_${index}`, 'x']);
    const reply = await fetch(`${harness.proxy.url}/v1/videos`, {
      method: 'POST',
      body: videoForm([['model', 'sora-2'], ['prompt', 'a storm'], ...filler, ['seconds', '12']]),
    });
    const text = await reply.text();
    // Counted as 4 seconds (0.4 credits), it went, and 12 were billed past the cap of 1.
    expect(reply.status, text).toBe(402);
    expect(JSON.parse(text).error.message).toContain('states no length Airlock can read');
    expect(sent('/videos')).toBe(0);
  });
});

describe('speech priced per character', () => {
  it("costs its input's characters, counted against a daily cap before sending", async () => {
    // A thousand characters a day.
    const { harness, client } = await start({ dailyCredits: (1000 * TTS_PER_MILLION_CHARACTERS) / 1e6 });
    await expect(client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'a'.repeat(1500) })).rejects.toMatchObject({
      status: 402,
    });
    expect(sent('/audio/speech')).toBe(0);

    const ended = harness.nextEnd();
    const speech = await client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'é'.repeat(600) });
    expect((await speech.arrayBuffer()).byteLength).toBeGreaterThan(0);
    expect((await ended).costCredits).toBeCloseTo((600 * TTS_PER_MILLION_CHARACTERS) / 1e6, 12);

    // 600 more would make 1200 characters today.
    await expect(client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'b'.repeat(600) })).rejects.toMatchObject({
      status: 402,
    });
    expect(sent('/audio/speech')).toBe(1);
  });
});
