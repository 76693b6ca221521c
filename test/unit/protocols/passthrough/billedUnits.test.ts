import { describe, expect, it } from 'vitest';
import { billedUnitsOf, statesBilledUnits } from '../../../../proxy/protocols/passthrough/billedUnits.ts';

const fields = (body: Record<string, unknown>) => (name: string) => body[name];

describe('billedUnitsOf', () => {
  it.each([
    // OpenAI's Videos API: `seconds` as the string it takes, or a number; 4 when absent.
    { path: 'videos', body: { model: 'sora-2', prompt: 'a cat', seconds: '8' }, units: { videoSeconds: 8 } },
    { path: 'videos', body: { model: 'sora-2', prompt: 'a cat', seconds: 12 }, units: { videoSeconds: 12 } },
    { path: 'videos', body: { model: 'sora-2', prompt: 'a cat' }, units: { videoSeconds: 4 } },
    // A length the gateway would refuse states none: nothing is billed for it.
    { path: 'videos', body: { model: 'sora-2', seconds: 'eight' }, units: null },
    { path: 'videos', body: { model: 'sora-2', seconds: '0' }, units: null },
    { path: 'videos', body: { model: 'sora-2', seconds: '' }, units: null },
    // Relays under /video/generations: `seconds` or `duration`, and no default they share.
    { path: 'video/generations', body: { seconds: '5' }, units: { videoSeconds: 5 } },
    { path: 'video/generations', body: { duration: 10 }, units: { videoSeconds: 10 } },
    { path: 'video/generations', body: { prompt: 'a cat' }, units: null },
    // Ark: a top-level duration, or its `--duration` / `--dur` command in the text; 5 seconds by default.
    { path: 'contents/generations/tasks', body: { duration: 10, content: [] }, units: { videoSeconds: 10 } },
    {
      path: 'contents/generations/tasks',
      body: { content: [{ type: 'text', text: 'a boy and a dog --ratio 16:9 --duration 10' }] },
      units: { videoSeconds: 10 },
    },
    {
      path: 'contents/generations/tasks',
      body: { content: [{ type: 'text', text: 'a boy --dur 5 --camerafixed false' }] },
      units: { videoSeconds: 5 },
    },
    { path: 'contents/generations/tasks', body: { content: [{ type: 'text', text: 'a boy, --durable' }] }, units: { videoSeconds: 5 } },
    { path: 'contents/generations/tasks', body: { content: [{ type: 'text', text: 'a boy' }] }, units: { videoSeconds: 5 } },
    // Speech: the input's characters, as code points (an emoji is one character, two UTF-16 units).
    { path: 'audio/speech', body: { model: 'tts-1', input: 'Hello there.' }, units: { speechCharacters: 12 } },
    { path: 'audio/speech', body: { model: 'tts-1', input: 'héllo 🙂' }, units: { speechCharacters: 7 } },
    { path: 'audio/speech', body: { model: 'tts-1' }, units: null },
    // Anything else states no units.
    { path: 'chat/completions', body: { model: 'gpt-4o', seconds: 8 }, units: null },
  ])('$path $body: $units', ({ path, body, units }) => {
    expect(billedUnitsOf(path, fields(body))).toEqual(units);
  });

  it('is asked only for the paths that state units', () => {
    expect(['videos', 'video/generations', 'contents/generations/tasks', 'audio/speech'].every(statesBilledUnits)).toBe(true);
    expect(['chat/completions', 'videos/video_1', 'audio/transcriptions', 'images/generations'].some(statesBilledUnits)).toBe(false);
  });
});
