import { describe, expect, it } from 'vitest';
import { capabilityProbes, interpretProbe } from '../../../../proxy/app/capabilities/probes.ts';

const json = (value: unknown) => ({ status: 200, contentType: 'application/json', bodyText: JSON.stringify(value) });
const completion = { choices: [{ message: { content: 'OK' } }] };
const toolCompletion = {
  choices: [{ message: { tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_time', arguments: '{}' } }] } }],
};

describe('capability probes', () => {
  it('probes every capability once, each naming the model', () => {
    const probes = capabilityProbes('qwen-plus');
    expect(probes.map((probe) => probe.capability)).toEqual([
      'chat',
      'stream',
      'tools',
      'image_input',
      'messages_native',
      'responses_native',
    ]);
    expect(probes.every((probe) => probe.body.model === 'qwen-plus')).toBe(true);
  });

  it.each([
    ['chat', json(completion), true],
    ['chat', json({ object: 'list' }), false],
    ['stream', { status: 200, contentType: 'text/event-stream', bodyText: 'data: {}\n\ndata: [DONE]\n\n' }, true],
    ['stream', json(completion), false],
    [
      'stream',
      { status: 200, contentType: 'text/event-stream', bodyText: 'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n' },
      true,
    ],
    ['stream', { status: 200, contentType: 'text/event-stream', bodyText: 'data: {"choices":[{"delta":{"content":"O"}}]}\n\n' }, false],
    ['tools', json(toolCompletion), true],
    ['tools', json(completion), false],
    ['image_input', json(completion), true],
    ['image_input', { status: 400, contentType: 'application/json', bodyText: '{"error":{"message":"image not supported"}}' }, false],
    ['messages_native', json({ type: 'message', content: [] }), true],
    ['messages_native', { status: 404, contentType: 'text/html', bodyText: '<html>' }, false],
    ['messages_native', { status: 200, contentType: 'text/html', bodyText: '<html>' }, false],
    ['responses_native', json({ object: 'response', output: [] }), true],
    ['responses_native', json(completion), false],
    ['chat', { status: 401, contentType: 'application/json', bodyText: '{}' }, null],
    ['tools', { status: 429, contentType: 'application/json', bodyText: '{}' }, null],
    ['stream', { status: 502, contentType: 'application/json', bodyText: '{}' }, null],
  ] as const)('%s with %j is %s', (capability, answer, expected) => {
    expect(interpretProbe(capability, answer)).toBe(expected);
  });
});
