import { describe, expect, it } from 'vitest';
import { formatTimestamp, formatTokens } from '../../../renderer/src/common/format.ts';
import { requestHash, requestIdFromHash, screenFromHash } from '../../../renderer/src/common/useHashRoute.ts';
import { requestTurns, responseTurn } from '../../../renderer/src/detail/conversation.ts';
import { matchRanges } from '../../../renderer/src/detail/Highlighted.tsx';
import { parseStreamEvents } from '../../../renderer/src/detail/streamEvents.ts';
import { applyUpdate, type LiveRow } from '../../../renderer/src/live/liveRows.ts';
import { collapseRefusals } from '../../../renderer/src/live/refusalGroups.ts';
import { endpointLabel } from '../../../renderer/src/live/RequestRow.tsx';

describe('requestTurns', () => {
  it('reads an OpenAI chat with a tool call and its result', () => {
    const body = JSON.stringify({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Weather in Oslo?' },
            { type: 'image_url', image_url: { url: 'data:' } },
          ],
        },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: '4 °C' },
      ],
    });
    expect(requestTurns(body)).toEqual([
      { role: 'system', parts: [{ kind: 'text', text: 'Be brief.' }] },
      { role: 'user', parts: [{ kind: 'text', text: 'Weather in Oslo?' }, { kind: 'image' }] },
      { role: 'assistant', parts: [{ kind: 'tool_call', name: 'weather', text: '{\n  "city": "Oslo"\n}' }] },
      { role: 'tool', parts: [{ kind: 'tool_result', name: 'c1', text: '4 °C' }] },
    ]);
  });

  it('reads an Anthropic Messages request with system blocks, tool_use and tool_result', () => {
    const body = JSON.stringify({
      system: [{ type: 'text', text: 'You are terse.' }],
      messages: [
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'weather', input: { city: 'Oslo' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'cold' }] }] },
      ],
    });
    expect(requestTurns(body)).toEqual([
      { role: 'system', parts: [{ kind: 'text', text: 'You are terse.' }] },
      { role: 'user', parts: [{ kind: 'text', text: 'Weather?' }] },
      { role: 'assistant', parts: [{ kind: 'tool_call', name: 'weather', text: '{\n  "city": "Oslo"\n}' }] },
      { role: 'user', parts: [{ kind: 'tool_result', name: 't1', text: 'cold' }] },
    ]);
  });

  it('reads a Responses request given as a string, and refuses what is no conversation', () => {
    expect(requestTurns(JSON.stringify({ instructions: 'Short.', input: 'Hi' }))).toEqual([
      { role: 'system', parts: [{ kind: 'text', text: 'Short.' }] },
      { role: 'user', parts: [{ kind: 'text', text: 'Hi' }] },
    ]);
    expect(requestTurns('not json')).toBeNull();
    expect(requestTurns(JSON.stringify({ input: 42 }))).toBeNull();
  });
});

describe('responseTurn', () => {
  it.each([
    ['chat', { choices: [{ message: { role: 'assistant', content: 'Hello' } }] }, [{ kind: 'text', text: 'Hello' }]],
    ['messages', { type: 'message', content: [{ type: 'text', text: 'Hi' }] }, [{ kind: 'text', text: 'Hi' }]],
  ])('finds the answer of a %s response', (_name, body, parts) => {
    expect(responseTurn(JSON.stringify(body))).toEqual({ role: 'assistant', parts });
  });

  it('has none for an error body', () => {
    expect(responseTurn(JSON.stringify({ error: { message: 'nope' } }))).toBeNull();
  });
});

describe('parseStreamEvents', () => {
  it('lists OpenAI chunks with the text each added, and [DONE]', () => {
    const raw = [
      'data: {"choices":[{"delta":{"role":"assistant"}}]}',
      'data: {"choices":[{"delta":{"content":"Hel"}}]}',
      'data: {"choices":[{"delta":{"content":"lo"}}]}',
      'data: [DONE]',
    ].join('\n\n');
    expect(parseStreamEvents(raw).map((row) => [row.index, row.type, row.delta])).toEqual([
      [1, 'message', ''],
      [2, 'message', 'Hel'],
      [3, 'message', 'lo'],
      [4, 'message', ''],
    ]);
  });

  it('names Anthropic events by their event field', () => {
    const raw = 'event: content_block_delta\ndata: {"type":"content_block_delta","delta":{"type":"text_delta","text":"Hi"}}\n\n';
    expect(parseStreamEvents(raw)).toEqual([
      {
        index: 1,
        type: 'content_block_delta',
        delta: 'Hi',
        data: '{"type":"content_block_delta","delta":{"type":"text_delta","text":"Hi"}}',
      },
    ]);
  });
});

describe('small readers', () => {
  it.each([
    ['/v1/chat/completions', 'chat'],
    ['/v1/messages', 'messages'],
    ['/v1/messages/count_tokens', 'count tokens'],
    ['/v1/responses', 'responses'],
    ['/v1/embeddings', 'embeddings'],
    ['/v1/images/generations', 'images'],
    ['/v1/models', 'models'],
    ['/v1/other', '/v1/other'],
  ])('names %s as %s', (path, label) => {
    expect(endpointLabel(path)).toBe(label);
  });

  it('finds every match of a search in any case', () => {
    expect(matchRanges('Airlock airlock AIRLOCK', 'airLock')).toEqual([
      [0, 7],
      [8, 15],
      [16, 23],
    ]);
    expect(matchRanges('text', '  ')).toEqual([]);
  });

  it('gives every request its own address', () => {
    expect(requestIdFromHash(requestHash('r 1/x'))).toBe('r 1/x');
    expect(screenFromHash(requestHash('abc'))).toBe('live');
    expect(requestIdFromHash('#/live')).toBeNull();
    expect(requestIdFromHash('#/spend')).toBeNull();
  });

  it.each([
    [9_999, '9999'],
    [15_097, '15.1k'],
    [1_500_000, '1.5M'],
    [15_097_100, '15.1M'],
  ])('reads %i tokens as %s', (count, text) => {
    expect(formatTokens(count)).toBe(text);
  });
});

describe('formatTimestamp', () => {
  const now = new Date(2026, 10, 26, 15, 0, 0).getTime();
  it('writes the time alone today, the date too on other days, and the year only when it is not this one', () => {
    expect(formatTimestamp(new Date(2026, 10, 26, 9, 5, 7).getTime(), now)).toMatch(/^09:05:07$/);
    const yesterday = formatTimestamp(new Date(2026, 10, 25, 23, 59, 1).getTime(), now);
    expect(yesterday).toContain('25');
    expect(yesterday).toContain('23:59:01');
    expect(yesterday).not.toContain('2026');
    expect(formatTimestamp(new Date(2025, 0, 3, 8, 0, 0).getTime(), now)).toContain('2025');
  });
});

describe('collapseRefusals', () => {
  const row = (id: string, errorClass: LiveRow['errorClass'], clientName = 'aider'): LiveRow => ({
    ...applyUpdate(undefined, { requestId: id, appendText: '', fields: { startedAtMs: 1 } })!,
    state: 'done',
    status: errorClass ? 429 : 200,
    errorClass,
    clientName,
  });
  const rows = new Map(
    [
      row('a', null),
      row('b', 'client_paused'),
      row('c', 'client_paused'),
      row('d', 'client_paused'),
      row('e', 'client_paused', 'cline'),
      row('f', 'rate_limited'),
      row('g', 'rate_limited'),
      row('h', 'rate_limited'),
    ].map((entry) => [entry.id, entry]),
  );
  const order = [...rows.keys()];

  it("folds a run of Airlock's identical refusals into one line keyed by its oldest request; the gateway's errors stay", () => {
    expect(collapseRefusals(order, rows, new Set())).toEqual([
      { kind: 'row', id: 'a' },
      { kind: 'group', key: 'd', ids: ['b', 'c', 'd'] },
      { kind: 'row', id: 'e' },
      { kind: 'row', id: 'f' },
      { kind: 'row', id: 'g' },
      { kind: 'row', id: 'h' },
    ]);
  });

  it('shows an opened group row by row', () => {
    expect(collapseRefusals(order, rows, new Set(['d'])).map((entry) => (entry.kind === 'row' ? entry.id : 'group'))).toEqual(order);
  });
});
