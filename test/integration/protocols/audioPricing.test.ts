import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSpendGate } from '../../../proxy/spend/spendGate.ts';
import { SpendLedger } from '../../../proxy/spend/spendLedger.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { PLAIN_HINT } from '../../../proxy/contracts/cli.ts';

/** OpenAI's and OpenRouter's price for whisper-1: $0.006 a minute of audio, billed to the second. */
const WHISPER_PER_MINUTE = 0.006;

/** A PCM WAV of `seconds` at 16,000 bytes a second (8 kHz, mono, 16-bit), the rate the simulator hears audio at. */
function wavFile(seconds: number): Buffer {
  const dataBytes = 16_000 * seconds;
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(8_000, 24);
  header.writeUInt32LE(16_000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(dataBytes, 40);
  return Buffer.concat([header, Buffer.alloc(dataBytes, 3)]);
}

const transcriptionsSent = (harness: Harness) =>
  harness.simulator.received.filter((received) => received.path.endsWith('/audio/transcriptions'));

describe('a whisper-1 transcription under a daily cap', () => {
  let harness: Harness;
  let client: OpenAI;

  beforeAll(async () => {
    harness = await startHarness({
      // Two minutes of audio a day.
      profile: { budget: { dailyCredits: 2 * WHISPER_PER_MINUTE }, prices: [{ model: 'whisper-1', perAudioMinute: WHISPER_PER_MINUTE }] },
      spendGate: createSpendGate({ commandHint: PLAIN_HINT, ledger: new SpendLedger(), clientBudget: () => undefined }),
    });
    client = new OpenAI({ baseURL: `${harness.proxy.url}/v1`, apiKey: 'client-placeholder', maxRetries: 0 });
  });
  afterAll(() => harness.close());

  it('is refused before sending when its audio would cross the cap, and spends what the gateway reports when it fits', async () => {
    // Three minutes of WAV, its length read from its header: past the two-minute cap, nothing is sent.
    const long = toFile(wavFile(180), 'long.wav', { type: 'audio/wav' });
    await expect(client.audio.transcriptions.create({ model: 'whisper-1', file: await long })).rejects.toMatchObject({ status: 402 });
    expect(transcriptionsSent(harness)).toHaveLength(0);

    const ended = harness.nextEnd();
    await client.audio.transcriptions.create({ model: 'whisper-1', file: await toFile(wavFile(90), 'talk.wav', { type: 'audio/wav' }) });
    expect((await ended).costCredits).toBeCloseTo(1.5 * WHISPER_PER_MINUTE, 12);

    // Half a minute left: a minute more is refused too.
    const minute = toFile(wavFile(60), 'minute.wav', { type: 'audio/wav' });
    await expect(client.audio.transcriptions.create({ model: 'whisper-1', file: await minute })).rejects.toMatchObject({ status: 402 });
    expect(transcriptionsSent(harness)).toHaveLength(1);
  });
});
