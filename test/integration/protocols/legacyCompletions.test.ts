import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LEGACY_COMPLETION_MODEL } from '../../simulator/completions.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { findSentinel } from '../../support/sentinel.ts';

let harness: Harness;
let client: OpenAI;

beforeAll(async () => {
  harness = await startHarness({ profile: { prices: [{ model: LEGACY_COMPLETION_MODEL, inputPer1M: 1.5, outputPer1M: 2 }] } });
  client = new OpenAI({ baseURL: `${harness.proxy.url}/v1`, apiKey: 'client-placeholder', maxRetries: 0 });
});
afterAll(() => harness.close());
beforeEach(() => {
  harness.simulator.reset();
  harness.events.length = 0;
});

async function streamedText(options: { includeUsage?: boolean } = {}): Promise<string> {
  const stream = await client.completions.create({
    model: LEGACY_COMPLETION_MODEL,
    prompt: 'Once upon a time',
    stream: true,
    ...(options.includeUsage ? { stream_options: { include_usage: true } } : {}),
  });
  let text = '';
  for await (const chunk of stream) text += chunk.choices[0]?.text ?? '';
  return text;
}

describe('legacy completions through Airlock', () => {
  it('a stream that carries its usage is billed at it', async () => {
    const ended = harness.nextEnd();
    const text = await streamedText({ includeUsage: true });
    expect(text).toContain('Once upon a time');
    const end = await ended;
    expect(end.errorClass).toBeNull();
    expect(end.usageSource).toBe('reported');
    expect(end.usage).toEqual({ inputTokens: 4, outputTokens: Math.ceil(text.length / 4) });
    expect(end.bodies.streamText).toBe(text);
  });

  it('a stream without usage is estimated from the text it wrote, not as no output', async () => {
    const ended = harness.nextEnd();
    await streamedText();
    const end = await ended;
    expect(end.usageSource).toBe('estimated');
    expect(end.usage?.outputTokens).toBeGreaterThan(5);
    expect(end.costCredits).toBeGreaterThan(0);
  });

  it('a whole answer without usage is estimated from the text it wrote, not as no output', async () => {
    const text = 'Once upon a time there was a gateway that never said how many tokens it used.';
    const answer = {
      id: 'cmpl-1',
      object: 'text_completion',
      model: LEGACY_COMPLETION_MODEL,
      choices: [{ index: 0, text, finish_reason: 'stop' }],
    };
    harness.simulator.script({ kind: 'text', status: 200, contentType: 'application/json', text: JSON.stringify(answer) });
    const ended = harness.nextEnd();
    const completion = await client.completions.create({ model: LEGACY_COMPLETION_MODEL, prompt: 'Once upon a time' });
    expect(completion.choices[0]?.text).toBe(text);
    const end = await ended;
    expect(end.usageSource).toBe('estimated');
    expect(end.usage?.outputTokens).toBeGreaterThan(10);
    expect(end.costCredits).toBeGreaterThan(0);
  });

  it('a key the model writes is masked across chunks, in what the client assembles and in the row', async () => {
    harness.simulator.script({ kind: 'echoKey' });
    const ended = harness.nextEnd();
    const text = await streamedText();
    expect(text).toContain('[redacted]');
    expect(findSentinel(text)).toBeNull();
    expect(findSentinel(JSON.stringify(await ended))).toBeNull();
  });

  it('a stream that ends before its finish and [DONE] is interrupted, not a whole answer', async () => {
    const chunk = { id: 'cmpl-1', object: 'text_completion', created: 1, model: LEGACY_COMPLETION_MODEL };
    const text = [' It', ' was']
      .map(
        (piece) => `data: ${JSON.stringify({ ...chunk, choices: [{ index: 0, text: piece, logprobs: null, finish_reason: null }] })}\n\n`,
      )
      .join('');
    harness.simulator.script({ kind: 'text', status: 200, contentType: 'text/event-stream', text, path: '/completions' });
    const ended = harness.nextEnd();
    await expect(streamedText()).rejects.toThrow();
    const end = await ended;
    expect(end.errorClass).toBe('stream_interrupted');
  });
});
