import { describe, expect, it } from 'vitest';
import { createSseRelay } from '../../../proxy/protocols/sseRelay.ts';

describe('createSseRelay', () => {
  it('says how many events each chunk completed, comments and a split event counted where they end', () => {
    const written: string[] = [];
    const relay = createSseRelay(
      (event) => `data: ${event.data}\n\n`,
      (frames) => written.push(frames),
    );
    const counts = [
      relay.feed(Buffer.from('data: 1\n\ndata: 2\n\n: keep-alive\n\nda')),
      relay.feed(Buffer.from('ta: 3')),
      relay.feed(Buffer.from('\n\n')),
      relay.feed(Buffer.from(': only a comment\n\n')),
    ];
    expect(counts).toEqual([2, 0, 1, 0]);
    expect(written.join('')).toBe('data: 1\n\ndata: 2\n\n: keep-alive\n\ndata: 3\n\n: only a comment\n\n');
  });

  it.each([
    [': ping\n\n', ': ping\n\n'],
    [': OPENROUTER PROCESSING\n\n', ': OPENROUTER PROCESSING\n\n'],
    [':\n\n', ':\n\n'],
    // The parser drops the one space after the colon, so the spaceless form is written with it.
    [':ping\n\n', ': ping\n\n'],
  ])('relays the comment %j as %j', (sent, relayed) => {
    const written: string[] = [];
    createSseRelay(
      (event) => `data: ${event.data}\n\n`,
      (frames) => written.push(frames),
    ).feed(Buffer.from(sent));
    expect(written.join('')).toBe(relayed);
  });
});
