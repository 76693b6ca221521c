import type { EventSourceMessage } from 'eventsource-parser';
import { describe, expect, it } from 'vitest';
import { KeyMasker } from '../../../proxy/core/keyMasker.ts';
import { REDACTED } from '../../../proxy/core/redact.ts';
import { anthropicAdapter } from '../../../proxy/protocols/anthropic/adapter.ts';
import { chatAdapter } from '../../../proxy/protocols/chat/adapter.ts';
import { responsesAdapter } from '../../../proxy/protocols/responses/adapter.ts';
import { formatSseEvent } from '../../../proxy/protocols/sse.ts';
import { guardingEscapedKey, maskedEventsText, type StreamKeyGuard } from '../../../proxy/protocols/streamKeyGuard.ts';
import { findSentinel, SENTINEL_KEY } from '../../support/sentinel.ts';

const masker = KeyMasker.for(SENTINEL_KEY);

/** `text` in pieces of 2 and 3 characters, in turn: a model repeating a pasted key. */
function pieces(text: string): string[] {
  const out: string[] = [];
  for (let start = 0, turn = 0; start < text.length; turn += 1) {
    const size = turn % 2 === 0 ? 2 : 3;
    out.push(text.slice(start, start + size));
    start += size;
  }
  return out;
}

/** Each protocol's guard, as its adapter gives it. */
type StreamDialect = 'chat' | 'anthropic' | 'responses';
const ADAPTERS = { chat: chatAdapter, anthropic: anthropicAdapter, responses: responsesAdapter };
const createStreamKeyGuard = (dialect: StreamDialect): StreamKeyGuard => ADAPTERS[dialect].stream.keyGuard(masker);

function run(dialect: StreamDialect, events: EventSourceMessage[]): { out: EventSourceMessage[]; masked: boolean } {
  const guard = createStreamKeyGuard(dialect);
  const out: EventSourceMessage[] = [];
  for (const event of events) guard.relay(event, (relayed) => out.push({ ...relayed }));
  return { out, masked: guard.masked };
}

const data = (json: object): EventSourceMessage => ({ data: JSON.stringify(json) });
const parsed = (events: EventSourceMessage[]) =>
  events
    .filter((event) => event.data !== '[DONE]')
    // biome-ignore lint/suspicious/noExplicitAny: the assertions read nested chunk fields of every protocol.
    .map((event) => JSON.parse(event.data) as Record<string, any>);
const said = `my key is ${SENTINEL_KEY}`;

describe('chat streams', () => {
  const chunk = (delta: object, finish: string | null = null, index = 0) =>
    data({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index, delta, finish_reason: finish }] });

  it('masks content, reasoning and tool arguments split across deltas, and flushes at the finish', () => {
    const events = [
      ...pieces(said).map((piece) => chunk({ reasoning_content: piece })),
      ...pieces(said).map((piece) => chunk({ content: piece })),
      ...pieces(`{"k":"${SENTINEL_KEY}`).map((piece) => chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] })),
      chunk({}, 'stop'),
      { data: '[DONE]' },
    ];
    const { out, masked } = run('chat', events);
    const deltas = parsed(out).map((json) => json.choices[0].delta);
    expect(deltas.map((delta) => delta.content ?? '').join('')).toBe(`my key is ${REDACTED}`);
    expect(deltas.map((delta) => delta.reasoning_content ?? '').join('')).toBe(`my key is ${REDACTED}`);
    expect(deltas.map((delta) => delta.tool_calls?.[0]?.function.arguments ?? '').join('')).toBe(`{"k":"${REDACTED}`);
    expect(out).toHaveLength(events.length);
    expect(masked).toBe(true);
    expect(findSentinel(out.map((event) => event.data).join(''))).toBeNull();
  });

  it("keeps OpenRouter's reasoning details with the reasoning they repeat, one event each, and masks both", () => {
    // OpenRouter repeats each reasoning piece in `reasoning_details` (its reasoning-tokens guide); a piece
    // ending in what could begin the key is held in both, and is no field "paused" while the next piece
    // carries both again: no chunk of its own may come between them.
    const thinking = `so ${said} is`;
    const events = [
      ...pieces(thinking).map((piece) =>
        chunk({ reasoning: piece, reasoning_details: [{ type: 'reasoning.text', text: piece, index: 0 }] }),
      ),
      chunk({ reasoning_details: [{ type: 'reasoning.text', signature: 'sig', index: 0 }] }),
      ...pieces('fine').map((piece) => chunk({ content: piece })),
      chunk({}, 'stop'),
      { data: '[DONE]' },
    ];
    const { out } = run('chat', events);
    const deltas = parsed(out).map((json) => json.choices[0].delta);
    const reasoning = deltas.map((delta) => delta.reasoning ?? '').join('');
    const details = deltas
      .flatMap((delta) => delta.reasoning_details ?? [])
      .map((detail) => detail.text ?? '')
      .join('');
    expect(reasoning).toBe(`so my key is ${REDACTED} is`);
    expect(details).toBe(reasoning);
    // The reasoning's held `s` goes on before the answer's first piece, not after it.
    const firstContent = deltas.findIndex((delta) => delta.content !== undefined);
    expect(deltas.slice(firstContent).some((delta) => delta.reasoning !== undefined)).toBe(false);
    expect(out).toHaveLength(events.length + 1);
    expect(findSentinel(out.map((event) => event.data).join(''))).toBeNull();
  });

  it('masks a key split across deltas from a gateway that sends finish_reason "" on every chunk', () => {
    // Ollama (ollama#4357), sglang (sglang#3912) and Sensenova (axonhub#2073) mark unfinished chunks with "", not null.
    const events = [...pieces(said).map((piece) => chunk({ content: piece }, '')), chunk({}, 'stop'), { data: '[DONE]' }];
    const { out, masked } = run('chat', events);
    const deltas = parsed(out).map((json) => json.choices[0].delta);
    expect(deltas.map((delta) => delta.content ?? '').join('')).toBe(`my key is ${REDACTED}`);
    expect(masked).toBe(true);
    expect(findSentinel(out.map((event) => event.data).join(''))).toBeNull();
  });

  it('keeps the choices of n > 1 apart, and hands on held text before [DONE] when no finish came', () => {
    const events = [
      chunk({ content: 'a s' }, null, 0),
      chunk({ content: 'b s' }, null, 1),
      chunk({ content: 'k' }, null, 1),
      { data: '[DONE]' },
    ];
    const { out } = run('chat', events);
    expect(out.map((event) => event.data).at(-1)).toBe('[DONE]');
    const texts = new Map<number, string>();
    for (const json of parsed(out))
      for (const choice of json.choices) texts.set(choice.index, (texts.get(choice.index) ?? '') + (choice.delta.content ?? ''));
    expect(Object.fromEntries(texts)).toEqual({ 0: 'a s', 1: 'b sk' });
    expect(parsed(out).at(-1)).toMatchObject({ id: 'c1', model: 'm', choices: [{ finish_reason: null }] });
  });

  it('changes only the held value in place, and rewrites an event from another serializer whole', () => {
    const compact = { data: '{"id":"c1","created":1.0,"choices":[{"index":0,"delta":{"content":"I ask"},"finish_reason":null}]}' };
    const spaced = { data: '{"id": "c1", "choices": [{"index": 0, "delta": {"content": "I ask"}, "finish_reason": null}]}' };
    expect(run('chat', [compact]).out[0]?.data).toBe(
      '{"id":"c1","created":1.0,"choices":[{"index":0,"delta":{"content":"I a"},"finish_reason":null}]}',
    );
    expect(JSON.parse(run('chat', [spaced]).out[0]?.data ?? '')).toEqual({
      id: 'c1',
      choices: [{ index: 0, delta: { content: 'I a' }, finish_reason: null }],
    });
  });

  it("holds back no end of a tool call's id or name, whole in its first delta, that could begin the key", () => {
    // The Vercel AI SDK takes the first delta's id and name as whole, openai-node and Cline the last one
    // sent: a held `s` would come later as a name of its own. Text after the call's arguments stays guarded.
    const events = [
      chunk({ tool_calls: [{ index: 0, id: 'call_s', type: 'function', function: { name: 'list_dirs', arguments: '' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"a":"s' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: 'k"}' } }] }),
      chunk({}, 'tool_calls'),
      { data: '[DONE]' },
    ];
    const before = events[0]?.data;
    const { out, masked } = run('chat', events);
    expect(out[0]?.data).toBe(before);
    expect(out).toHaveLength(events.length);
    const calls = parsed(out).flatMap((json) => json.choices[0].delta.tool_calls ?? []);
    expect(calls.map((call) => call.function.arguments).join('')).toBe('{"a":"sk"}');
    expect(calls.filter((call) => call.id !== undefined || call.function.name !== undefined)).toHaveLength(1);
    expect(masked).toBe(false);
  });

  it('passes an event it has nothing to change as it came', () => {
    const event = chunk({ content: 'Hello there.' });
    const before = event.data;
    expect(run('chat', [event]).out[0]?.data).toBe(before);
  });
});

describe('Anthropic streams', () => {
  const delta = (index: number, type: string, field: string, text: string): EventSourceMessage => ({
    event: 'content_block_delta',
    data: JSON.stringify({ type: 'content_block_delta', index, delta: { type, [field]: text } }),
  });
  const stop = (index: number): EventSourceMessage => ({
    event: 'content_block_stop',
    data: JSON.stringify({ type: 'content_block_stop', index }),
  });

  it('masks text and tool input per block, and hands on what a block held before its stop', () => {
    const events = [
      ...pieces(said).map((piece) => delta(0, 'text_delta', 'text', piece)),
      delta(0, 'text_delta', 'text', ' s'),
      stop(0),
      ...pieces(`{"key":"${SENTINEL_KEY}"}`).map((piece) => delta(1, 'input_json_delta', 'partial_json', piece)),
      stop(1),
      { event: 'message_stop', data: '{"type":"message_stop"}' },
    ];
    const { out } = run('anthropic', events);
    const blockText = (index: number, field: string) =>
      parsed(out)
        .filter((json) => json.type === 'content_block_delta' && json.index === index)
        .map((json) => json.delta[field])
        .join('');
    expect(blockText(0, 'text')).toBe(`my key is ${REDACTED} s`);
    expect(blockText(1, 'partial_json')).toBe(`{"key":"${REDACTED}"}`);
    const firstStop = out.findIndex((event) => event.event === 'content_block_stop');
    const lastOfBlock0 = out.findLastIndex(
      (event) => event.event === 'content_block_delta' && (JSON.parse(event.data) as { index: number }).index === 0,
    );
    expect(firstStop).toBeGreaterThan(lastOfBlock0);
    expect(findSentinel(out.map((event) => event.data).join(''))).toBeNull();
  });
});

describe('Responses streams', () => {
  const textDelta = (text: string, item = 'msg_1') =>
    data({ type: 'response.output_text.delta', item_id: item, output_index: 0, content_index: 0, delta: text });

  it('masks output text across deltas and hands on held text before the part is done', () => {
    const events = [
      ...pieces(said).map((piece) => textDelta(piece)),
      textDelta(' s'),
      data({ type: 'response.output_text.done', item_id: 'msg_1', output_index: 0, content_index: 0, text: `my key is ${REDACTED} s` }),
      data({ type: 'response.completed', response: { id: 'r1' } }),
    ];
    const { out } = run('responses', events);
    const texts = parsed(out).filter((json) => json.type === 'response.output_text.delta');
    expect(texts.map((json) => json.delta).join('')).toBe(`my key is ${REDACTED} s`);
    expect(parsed(out).findIndex((json) => json.type === 'response.output_text.done')).toBeGreaterThan(
      parsed(out).findLastIndex((json) => json.type === 'response.output_text.delta'),
    );
    expect(texts.every((json) => json.item_id === 'msg_1' && json.content_index === 0)).toBe(true);
  });
});

describe('maskedEventsText (the raw events kept for the log)', () => {
  it('masks the key across deltas and whole, and keeps comments', () => {
    const chunk = (content: string) => ({
      data: JSON.stringify({ id: `req_${SENTINEL_KEY}`, choices: [{ index: 0, delta: { content }, finish_reason: null }] }),
    });
    const raw = [': keep-alive\n\n', ...pieces(said).map((piece) => formatSseEvent(chunk(piece))), 'data: [DONE]\n\n'].join('');
    const masked = maskedEventsText(Buffer.from(raw), masker, createStreamKeyGuard('chat'));
    expect(findSentinel(masked)).toBeNull();
    expect(masked.startsWith(': keep-alive\n\n')).toBe(true);
    const text = masked
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice(6)).choices[0].delta.content)
      .join('');
    expect(text).toBe(`my key is ${REDACTED}`);
  });

  it('keeps every event of a stream that starts with a byte order mark and ends its lines with lone CRs', () => {
    const chunk = (content: string) => JSON.stringify({ choices: [{ index: 0, delta: { content }, finish_reason: null }] });
    const raw = `\uFEFFdata: ${chunk(said)}\r\rdata: [DONE]\r\r`;
    const masked = maskedEventsText(Buffer.from(raw), masker, createStreamKeyGuard('chat'));
    expect(masked).toBe(`data: ${chunk(`my key is ${REDACTED}`)}\n\ndata: [DONE]\n\n`);
  });
});

describe('guardingEscapedKey (the escaped form of the key, whole in one event)', () => {
  it('masks the escaped key and says so, with methods and getters shared by every stream', () => {
    const chunk = { choices: [{ index: 0, delta: { content: `key ${SENTINEL_KEY}` }, finish_reason: 'stop' }] };
    // The key's dashes as JSON escapes: the client's parse spells the key, the raw text does not hold it.
    const escaped = { data: JSON.stringify(chunk).replaceAll('-', '\\u002d') };
    const guard = guardingEscapedKey(createStreamKeyGuard('chat'), masker);
    const out: EventSourceMessage[] = [];
    guard.relay(escaped, (event) => out.push({ ...event }));
    expect(out.map((event) => findSentinel(JSON.stringify(JSON.parse(event.data))))).toEqual([null]);
    expect(guard.masked).toBe(true);
    expect(guard.holding).toBe(false);
    // Two getters and a closure a stream, in a dictionary-mode object, were 0.45 KB of each open stream's heap.
    const other = guardingEscapedKey(createStreamKeyGuard('chat'), masker);
    expect(Object.keys(guard)).toEqual([]);
    expect(other.relay).toBe(guard.relay);
  });
});
