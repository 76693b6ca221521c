import { request } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chatAnswerText, chatBody } from '../../support/http.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';

/**
 * The answer's head as it goes on the wire: Airlock's own headers first (the request id, then who
 * answered), then the gateway's in the order it sent them, then what Airlock states of the body.
 * Pinned because the head is written as one list rather than header by header (relay's hot path).
 */
let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({ profile: { fallbacks: [] } });
});
afterAll(() => harness.close());
beforeEach(() => harness.simulator.reset());

/** The status and the header lines (name, value) as received, in order. */
function rawHead(path: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number; lines: [string, string][] }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${harness.proxy.url}${path}`,
      { method: 'POST', headers: { 'content-type': 'application/json', ...headers } },
      (res) => {
        const lines: [string, string][] = [];
        for (let index = 0; index < res.rawHeaders.length; index += 2)
          lines.push([res.rawHeaders[index] as string, res.rawHeaders[index + 1] as string]);
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, lines }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const namesOf = (lines: [string, string][]): string[] => lines.map(([name]) => name.toLowerCase());
/** Node's own framing lines (date, connection, keep-alive), which follow whatever was written. */
const FRAMING = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);
const written = (lines: [string, string][]): string[] => namesOf(lines).filter((name) => !FRAMING.has(name));

describe("an answer's head on the wire", () => {
  it('a whole JSON answer: the request id, who answered, the gateway headers as sent, then type and length', async () => {
    harness.simulator.script({
      kind: 'text',
      status: 200,
      text: chatAnswerText('hello'),
      contentType: 'application/json',
      headers: { 'x-request-id': 'req_1', 'openai-processing-ms': '12', 'X-Custom-Case': 'kept' },
    });
    const { status, lines } = await rawHead('/v1/chat/completions', chatBody());
    expect(status).toBe(200);
    const names = written(lines);
    // Exactly as before the head was written as one list: the gateway's content-type keeps its place, its date is passed on.
    expect(namesOf(lines)).toEqual([
      'x-airlock-request-id',
      'x-airlock-answered-by',
      'x-request-id',
      'content-type',
      'openai-processing-ms',
      'x-custom-case',
      'date',
      'content-length',
      'connection',
      'keep-alive',
    ]);
    expect(names.slice(0, 2)).toEqual(['x-airlock-request-id', 'x-airlock-answered-by']);
    const gateway = names.filter((name) => ['x-request-id', 'openai-processing-ms', 'x-custom-case'].includes(name));
    expect(gateway).toEqual(['x-request-id', 'openai-processing-ms', 'x-custom-case']);
    expect(names.indexOf('content-length')).toBeGreaterThan(names.indexOf('x-custom-case'));
    // Names go out lower-cased, whatever the gateway's spelling (buildClientResponseHeaders).
    expect(lines.find(([name]) => name.toLowerCase() === 'x-custom-case')).toEqual(['x-custom-case', 'kept']);
    expect(names.filter((name) => name === 'x-airlock-request-id')).toHaveLength(1);
    expect(names.filter((name) => name === 'content-type')).toHaveLength(1);
  });

  it('a streamed answer: the same own headers first, then the stream headers', async () => {
    const { lines } = await rawHead('/v1/chat/completions', chatBody({ stream: true }));
    const names = written(lines);
    expect(names.slice(0, 2)).toEqual(['x-airlock-request-id', 'x-airlock-answered-by']);
    expect(names).toContain('cache-control');
    expect(names.filter((name) => name === 'content-type')).toHaveLength(1);
  });

  it("a gateway's own x-airlock-* headers are dropped: the request id is Airlock's, the one its log row has", async () => {
    harness.simulator.script({
      kind: 'text',
      status: 200,
      text: chatAnswerText('hello'),
      contentType: 'application/json',
      headers: { 'X-Airlock-Request-Id': 'gateway-id', 'x-airlock-answered-by': 'other/model', 'x-airlock-note': 'relay' },
    });
    const ended = harness.nextEnd();
    const { lines } = await rawHead('/v1/chat/completions', chatBody());
    const { requestId } = await ended;
    const own = lines.filter(([name]) => name.toLowerCase().startsWith('x-airlock-'));
    expect(own).toEqual([
      ['x-airlock-request-id', requestId],
      ['x-airlock-answered-by', 'test/gpt-4o-mini'],
    ]);
  });

  it("a refusal Airlock answers itself: the request id first, and no gateway's name", async () => {
    const { status, lines } = await rawHead('/v1/chat/completions', '{not json');
    expect(status).toBe(400);
    const names = written(lines);
    expect(names[0]).toBe('x-airlock-request-id');
    expect(names).not.toContain('x-airlock-answered-by');
  });
});
