import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sseData } from '../../support/http.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { keyFreeChatStream } from './fixtures/keyFreeChatStream.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';

/**
 * Chat stream fields beyond the text that clients join across deltas: openai-node's
 * ChatCompletionStream appends each delta's `audio.transcript` (an audio answer's words, gpt-4o-audio)
 * and the legacy `function_call.arguments` to what it has (lib/ChatCompletionStream.js). A key the
 * model says or passes a few characters a delta must be whole in neither.
 */
let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
});
afterAll(() => harness.close());

const chunk = (delta: object, finish: string | null = null): string =>
  `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-audio-preview', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

describe.each([
  [
    "an audio answer's transcript",
    (piece: string) => ({ audio: { id: 'audio_1', transcript: piece } }),
    (delta: Record<string, Record<string, unknown>>) => delta.audio?.transcript,
  ],
  [
    "a legacy function call's arguments",
    (piece: string) => ({ function_call: { arguments: piece } }),
    (delta: Record<string, Record<string, unknown>>) => delta.function_call?.arguments,
  ],
])('a key in %s, a few characters a delta', (_field, deltaOf, read) => {
  it('reaches neither the client nor the log, the rest of the text whole', async () => {
    const text = `The key is ${SENTINEL_KEY} and its`;
    const pieces = text.match(/.{1,3}/g) ?? [];
    const body = await keyFreeChatStream(harness, [...pieces.map((piece) => chunk(deltaOf(piece))), chunk({}, 'stop'), 'data: [DONE]\n\n']);
    const joined = sseData(body)
      .filter((data) => data !== '[DONE]')
      .map((data) => read((JSON.parse(data) as { choices: [{ delta: Record<string, Record<string, unknown>> }] }).choices[0].delta))
      .filter((value): value is string => typeof value === 'string')
      .join('');
    expect(joined).toBe('The key is [redacted] and its');
  });
});
