import { describe, expect, it } from 'vitest';
import { createSseRelay } from '../../../proxy/protocols/sseRelay.ts';
import { charactersSearched } from '../../support/charactersSearched.ts';

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

/** Every event the relay completes, as `event|id|data`, and how many each chunk completed. */
function relayed(chunks: readonly (string | Buffer)[]): { events: string[]; counts: number[] } {
  const events: string[] = [];
  const relay = createSseRelay(
    (event) => {
      events.push(`${event.event ?? ''}|${event.id ?? ''}|${event.data}`);
      return '';
    },
    () => {},
  );
  const counts = chunks.map((chunk) => relay.feed(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
  return { events, counts };
}

// Line ends as the SSE spec allows them: CRLF, a lone LF or a lone CR
// (https://html.spec.whatwg.org/multipage/server-sent-events.html#parsing-an-event-stream).
describe('createSseRelay: line endings', () => {
  it.each([
    ['LF', '\n'],
    ['CRLF', '\r\n'],
    ['a lone CR', '\r'],
  ])('completes an event ended by %s in the chunk that ends it', (_name, eol) => {
    const { events, counts } = relayed([`data: 1${eol}${eol}`, `event: x${eol}data: 2${eol}${eol}`]);
    expect(events).toEqual(['||1', 'x||2']);
    expect(counts).toEqual([1, 1]);
  });

  it('reads mixed line ends in one stream', () => {
    const { events } = relayed(['data: 1\r\n\ndata: 2\n\r\ndata: 3\r\rdata: 4\r\n\r\n']);
    expect(events).toEqual(['||1', '||2', '||3', '||4']);
  });

  it('takes a CRLF split across two chunks for one line end, not an empty line', () => {
    const { events, counts } = relayed(['data: 1\r', '\ndata: 2\r', '\n\r', '\n']);
    expect(events).toEqual(['||1\n2']);
    expect(counts).toEqual([0, 0, 1, 0]);
  });

  it('completes an event whose lone CR blank line ends a chunk before the next chunk comes', () => {
    const { events, counts } = relayed(['data: 1\r', '\r', 'data: 2\r\r']);
    expect(events).toEqual(['||1', '||2']);
    expect(counts).toEqual([0, 1, 1]);
  });
});

describe('createSseRelay: what the spec allows in a field', () => {
  it('decodes a UTF-8 character split across chunks and drops a byte order mark at the start', () => {
    const bytes = Buffer.from('\uFEFFdata: caf\u00e9 \u20ac \u{1F600}\n\n');
    const { events } = relayed([
      bytes.subarray(0, 2),
      bytes.subarray(2, 12),
      bytes.subarray(12, 16),
      bytes.subarray(16, 20),
      bytes.subarray(20),
    ]);
    expect(events).toEqual(['||caf\u00e9 \u20ac \u{1F600}']);
  });

  it('reads data without a space, several data lines, ids, names, and ignores retry, unknown fields and comments', () => {
    const { events } = relayed([
      'data:{"a":1}\n\n',
      'data: line 1\ndata:line 2\ndata\n\n',
      'id: 7\nevent: error\nretry: 3000\nunknown: x\nnocolon\n: keep-alive\ndata: {"error":{}}\n\n',
      // An event with a name and no data is not dispatched (spec); the SDKs skip it too.
      'event: ping\n\n',
      ': OPENROUTER PROCESSING\n\n',
    ]);
    expect(events).toEqual(['||{"a":1}', '||line 1\nline 2\n', 'error|7|{"error":{}}']);
  });
});

describe('createSseRelay: work per character', () => {
  const EVENTS = 20_000;

  it.each([
    ['LF', '\n'],
    ['CRLF', '\r\n'],
    ['a lone CR', '\r'],
  ])('reads many tiny events in one chunk, ended by %s, in one pass', (_name, eol) => {
    let stream = '';
    for (let index = 0; index < EVENTS; index += 1) stream += `data: {"i":${index}}${eol}${eol}`;
    let count = 0;
    const searched = charactersSearched(() => {
      count = relayed([stream]).events.length;
    });
    expect(searched).toBeLessThan(8 * stream.length);
    expect(count).toBe(EVENTS);
  });

  it('passes on a several-MB event that arrives in many chunks intact, reading each character a bounded number of times', () => {
    const image = 'QUJD'.repeat(1_500_000);
    const event = `data: {"b64_json":"${image}"}\r\n\r\n`;
    const chunks: string[] = [];
    for (let at = 0; at < event.length; at += 65_536) chunks.push(event.slice(at, at + 65_536));
    let events: string[] = [];
    const searched = charactersSearched(() => {
      events = relayed(chunks).events;
    });
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0]!.slice(2)).b64_json).toBe(image);
    expect(searched).toBeLessThan(8 * event.length);
  });
});
