import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';

/**
 * An image or video creation the gateway may have run before it failed is never sent twice
 * (docs/gateway-spec.md §7 rule 3), by Airlock or by its client. The OpenAI SDK sends no
 * idempotency key and resends a 5xx or a connection failure twice by default: the failure it
 * gets from Airlock must say `x-should-retry: false`, or one creation the user sees fail is three
 * paid ones. Each client here keeps the SDK's default retries.
 */
let harness: Harness;
let client: OpenAI;

beforeAll(async () => {
  harness = await startHarness();
  client = new OpenAI({ baseURL: `${harness.proxy.url}/v1`, apiKey: 'client-placeholder' });
});
afterAll(() => harness.close());
beforeEach(() => harness.simulator.reset());

function received(pathEnd: string): number {
  return harness.simulator.received.filter((request) => request.path.endsWith(pathEnd)).length;
}

describe('an image or video creation without a key that failed after the gateway had it', () => {
  it('is sent once when the gateway gave up waiting (504), and the client is told why and what to check', async () => {
    harness.simulator.script({ kind: 'createThenFail', status: 504 });
    const failure = await client.videos.create({ model: 'qwen-plus', prompt: 'a lighthouse' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect((failure as InstanceType<typeof OpenAI.APIError>).status).toBe(504);
    expect((failure as Error).message).toContain('may have run and billed it');
    expect(harness.simulator.tasks()).toHaveLength(1);
    expect(received('/videos')).toBe(1);
  });

  it('is sent once when the connection broke with no answer', async () => {
    harness.simulator.script({ kind: 'createThenFail' });
    await expect(client.videos.create({ model: 'qwen-plus', prompt: 'a lighthouse' })).rejects.toBeInstanceOf(OpenAI.APIError);
    expect(harness.simulator.tasks()).toHaveLength(1);
  });

  it('is sent once on a 502, a JSON image generation and a multipart image edit alike', async () => {
    harness.simulator.script({ kind: 'status', status: 502, path: '/images/generations' });
    await expect(client.images.generate({ model: 'gpt-image-1', prompt: 'a cat' })).rejects.toMatchObject({ status: 502 });
    expect(received('/images/generations')).toBe(1);
    harness.simulator.script({ kind: 'status', status: 500, path: '/images/edits' });
    const image = await toFile(Buffer.from('\x89PNG\r\n\x1a\n'), 'cat.png', { type: 'image/png' });
    await expect(client.images.edit({ model: 'gpt-image-1', prompt: 'a hat', image })).rejects.toMatchObject({ status: 500 });
    expect(received('/images/edits')).toBe(1);
  });

  it('is named for what it is when it is a batch job, not as an image or video', async () => {
    harness.simulator.script({ kind: 'status', status: 502, path: '/batches' });
    const batch = { input_file_id: 'file-abc', endpoint: '/v1/chat/completions', completion_window: '24h' } as const;
    const failure = await client.batches.create(batch).catch((error: unknown) => error);
    expect(failure).toMatchObject({ status: 502 });
    expect((failure as Error).message).toContain('may have run and billed it');
    expect((failure as Error).message).not.toContain('image or video');
    expect(received('/batches')).toBe(1);
  });
});

describe('a creation the client may still resend', () => {
  it('is a 429, which the gateway refused without running it', async () => {
    harness.simulator.script({ kind: 'status', status: 429, path: '/images/generations' });
    const once = new OpenAI({ baseURL: `${harness.proxy.url}/v1`, apiKey: 'client-placeholder', maxRetries: 1 });
    const images = await once.images.generate({ model: 'gpt-image-1', prompt: 'a cat' });
    expect(images.data).toHaveLength(1);
    expect(received('/images/generations')).toBe(2);
  });

  it("is no creation but a poll by POST under a video path (SiliconFlow's /video/status), resent as any poll", async () => {
    // docs.siliconflow.cn/en/api-reference/videos/get_videos_status: the status of a submitted video is a POST of its requestId.
    harness.simulator.script({ kind: 'status', status: 502, path: '/video/status' });
    harness.simulator.script({
      kind: 'text',
      path: '/video/status',
      status: 200,
      contentType: 'application/json',
      text: '{"status":"InProgress"}',
    });
    const status = await client.post('/video/status', { body: { requestId: 'req-1' } });
    expect(status).toEqual({ status: 'InProgress' });
    expect(received('/video/status')).toBe(2);
  });

  it('is one sent with an idempotency key, which reaches the gateway with every attempt', async () => {
    harness.simulator.script({ kind: 'status', status: 502, path: '/images/generations' });
    const keyed = { headers: { 'Idempotency-Key': 'creation-7' } };
    const images = await client.images.generate({ model: 'gpt-image-1', prompt: 'a cat' }, keyed);
    expect(images.data).toHaveLength(1);
    const sent = harness.simulator.received.filter((request) => request.path.endsWith('/images/generations'));
    expect(sent.map((request) => request.headers['idempotency-key'])).toEqual(['creation-7', 'creation-7']);
  });
});
