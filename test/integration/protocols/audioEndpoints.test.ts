import { createHash } from 'node:crypto';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RequestLifecycleEvent } from '../../../proxy/contracts/lifecycle.ts';
import { bodyTextsOf } from '../../../proxy/store/write/bodyRecord.ts';
import { speechAudio } from '../../simulator/audio.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { findSentinel } from '../../support/sentinel.ts';

type EndEvent = Extract<RequestLifecycleEvent, { type: 'end' }>;

/** OpenAI's and OpenRouter's price for whisper-1: $0.006 a minute of audio, billed to the second. */
const WHISPER_PER_MINUTE = 0.006;

const PRICES = [
  { model: 'gpt-4o-transcribe', inputPer1M: 2.5, outputPer1M: 10 },
  { model: 'whisper-1', perAudioMinute: WHISPER_PER_MINUTE },
  { model: 'tts-1', inputPer1M: 15 },
  { model: 'gpt-4o-mini', inputPer1M: 0.15, outputPer1M: 0.6, perCall: 0.5 },
];

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/** Audio of `seconds` as the simulator hears it (16 KB a second), in every byte value. */
const audioFile = (seconds: number): Buffer => speechAudio('an upload '.repeat(2 * seconds), 'wav').subarray(0, 16_000 * seconds);

function upstreamModelOf(harness: Harness, end: EndEvent): string | null {
  const start = harness.events.find((event) => event.type === 'start' && event.requestId === end.requestId);
  return start?.type === 'start' ? start.upstreamModel : null;
}

describe('audio through Airlock with the official openai SDK', () => {
  let harness: Harness;
  let client: OpenAI;

  beforeAll(async () => {
    harness = await startHarness({ profile: { prices: PRICES, modelAliases: { stt: 'gpt-4o-transcribe' } } });
    client = new OpenAI({ baseURL: `${harness.proxy.url}/v1`, apiKey: 'client-placeholder', maxRetries: 0 });
  });
  afterAll(() => harness.close());
  beforeEach(() => {
    harness.simulator.reset();
    harness.events.length = 0;
  });

  it('speech comes back byte for byte, with its content type and length, and the log describes it instead of decoding it', async () => {
    const ended = harness.nextEnd();
    const speech = await client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'Hello from the simulator' });
    const audio = Buffer.from(await speech.arrayBuffer());
    const expected = speechAudio('Hello from the simulator');
    expect(sha256(audio)).toBe(sha256(expected));
    expect(speech.headers.get('content-type')).toBe('audio/mpeg');
    expect(speech.headers.get('content-length')).toBe(String(expected.length));
    const end = await ended;
    expect(end.status).toBe(200);
    expect(bodyTextsOf(end.bodies).response).toBe(`[binary body not logged: ${expected.length} bytes, audio/mpeg]`);
  });

  it('a transcription is logged and priced as the model its form names, at the usage the gateway reported', async () => {
    const ended = harness.nextEnd();
    const transcription = await client.audio.transcriptions.create({
      model: 'gpt-4o-transcribe',
      file: await toFile(audioFile(4), 'talk.wav', { type: 'audio/wav' }),
    });
    expect(transcription.text).toContain('talk.wav');
    // The form reached the gateway whole, under the boundary the SDK chose.
    const [received] = harness.simulator.received;
    expect(String(received?.headers['content-type'])).toMatch(/^multipart\/form-data; boundary=/);
    const end = await ended;
    expect(upstreamModelOf(harness, end)).toBe('gpt-4o-transcribe');
    expect(end.usageSource).toBe('reported');
    expect(end.usage).toMatchObject({ inputTokens: 40 });
    const { inputTokens, outputTokens } = end.usage!;
    expect(end.costCredits).toBeCloseTo((inputTokens * 2.5 + outputTokens * 10) / 1_000_000, 12);
  });

  it("a streamed transcription is billed at the usage its last event reports, and its text is the row's answer", async () => {
    const ended = harness.nextEnd();
    const stream = await client.audio.transcriptions.create({
      model: 'gpt-4o-transcribe',
      stream: true,
      file: await toFile(audioFile(5), 'talk.wav', { type: 'audio/wav' }),
    });
    let text = '';
    for await (const event of stream) if (event.type === 'transcript.text.done') text = event.text;
    const end = await ended;
    expect(end.errorClass).toBeNull();
    expect(end.usageSource).toBe('reported');
    expect(end.usage).toMatchObject({ inputTokens: 50, outputTokens: Math.ceil(text.length / 4) });
    expect(end.bodies.streamText).toBe(text);
  });

  it("an alias in a form's model field is replaced by the gateway's model, the file going as it came", async () => {
    const file = audioFile(3);
    const ended = harness.nextEnd();
    const transcription = await client.audio.transcriptions.create({
      model: 'stt',
      file: await toFile(file, 'a.wav', { type: 'audio/wav' }),
    });
    expect(transcription.text).toContain(`${file.length} bytes`);
    const sent = harness.simulator.received[0]!.body;
    expect(sent.includes(Buffer.from('\r\n\r\ngpt-4o-transcribe\r\n'))).toBe(true);
    expect(sent.includes(file)).toBe(true);
    expect(sent.length).toBe(Number(harness.simulator.received[0]!.headers['content-length']));
    expect(upstreamModelOf(harness, await ended)).toBe('gpt-4o-transcribe');
  });
});

describe("a client token's default model", () => {
  let harness: Harness;
  let client: OpenAI;

  beforeAll(async () => {
    harness = await startHarness({
      profile: { prices: PRICES },
      identity: { tokenName: 'scripts', pinnedProfileId: null, defaultModel: 'gpt-4o-mini' },
    });
    client = new OpenAI({ baseURL: `${harness.proxy.url}/v1`, apiKey: 'client-placeholder', maxRetries: 0 });
  });
  afterAll(() => harness.close());
  beforeEach(() => {
    harness.simulator.reset();
    harness.events.length = 0;
  });

  it('is not what an upload that names its own model is logged and billed as, nor are its audio bytes counted as tokens', async () => {
    const ended = harness.nextEnd();
    await client.audio.transcriptions.create({ model: 'whisper-1', file: await toFile(audioFile(30), 'long.wav', { type: 'audio/wav' }) });
    const end = await ended;
    expect(upstreamModelOf(harness, end)).toBe('whisper-1');
    // whisper-1 reports seconds, not tokens: billed by the minute, never as tokens counted from the audio's bytes.
    expect(end.usage).toEqual({ inputTokens: 0, outputTokens: 0, audioSeconds: 30 });
    expect(end.usageSource).toBe('reported');
    expect(end.costCredits).toBeCloseTo((30 / 60) * WHISPER_PER_MINUTE, 12);
  });

  it.each(['json', 'verbose_json'] as const)(
    'bills whisper-1 by the seconds its %s answer reports, at the price per minute',
    async (format) => {
      const ended = harness.nextEnd();
      await client.audio.transcriptions.create({
        model: 'whisper-1',
        response_format: format,
        file: await toFile(audioFile(90), 'talk.wav', { type: 'audio/wav' }),
      });
      const end = await ended;
      expect(end.usage?.audioSeconds).toBe(90);
      expect(end.costCredits).toBeCloseTo(1.5 * WHISPER_PER_MINUTE, 12);
    },
  );

  it('does not make a model list a model request, with a usage or a price', async () => {
    const ended = harness.nextEnd();
    await client.models.list();
    const end = await ended;
    expect(upstreamModelOf(harness, end)).toBeNull();
    expect(end.usage).toBeNull();
    expect(end.costCredits).toBeNull();
  });

  it('still names the model of a JSON request that names none', async () => {
    const ended = harness.nextEnd();
    const response = await fetch(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(200);
    const end = await ended;
    expect(upstreamModelOf(harness, end)).toBe('gpt-4o-mini');
    expect(JSON.parse(harness.simulator.received[0]!.body.toString('utf8'))).toMatchObject({ model: 'gpt-4o-mini' });
    expect(findSentinel(JSON.stringify(end))).toBeNull();
  });
});
