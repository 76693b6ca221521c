import { describe, expect, it } from 'vitest';
import type { TokenUsage } from '../../../proxy/contracts/usage.ts';
import type { ProtocolAdapter } from '../../../proxy/protocols/adapter.ts';
import { anthropicAdapter } from '../../../proxy/protocols/anthropic/adapter.ts';
import { chatAdapter } from '../../../proxy/protocols/chat/adapter.ts';
import { responsesAdapter } from '../../../proxy/protocols/responses/adapter.ts';
import { statedUsageIn } from '../../../proxy/protocols/statedUsage.ts';

const frame = (data: object, event?: string) => `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;
const chunk = (content: string, usage?: object) => frame({ choices: [{ index: 0, delta: { content } }], ...(usage ? { usage } : {}) });

/** A stream's captured start, cut before its final usage: what the gateway had stated by then. */
describe('statedUsageIn', () => {
  it.each<[string, ProtocolAdapter, string, TokenUsage | null]>([
    [
      // Anthropic's message_start carries the input and its cache reads and writes (Messages streaming reference).
      'Messages cut after message_start: its counts, cache reads and writes included',
      anthropicAdapter,
      frame(
        {
          type: 'message_start',
          message: {
            model: 'm',
            usage: { input_tokens: 10, cache_read_input_tokens: 50_000, cache_creation_input_tokens: 200, output_tokens: 1 },
          },
        },
        'message_start',
      ) + frame({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hel' } }, 'content_block_delta'),
      { inputTokens: 50_210, outputTokens: 1, cachedInputTokens: 50_000, cacheWriteInputTokens: 200 },
    ],
    [
      'chat with a running count on every chunk: the last one',
      chatAdapter,
      chunk('a', { prompt_tokens: 100, completion_tokens: 1, prompt_tokens_details: { cached_tokens: 64 } }) +
        chunk('b', { prompt_tokens: 100, completion_tokens: 2, prompt_tokens_details: { cached_tokens: 64 } }) +
        'data: {"choices":[{"ind',
      { inputTokens: 100, outputTokens: 2, cachedInputTokens: 64 },
    ],
    ['chat without any count', chatAdapter, chunk('a') + chunk('b'), null],
    [
      'Responses states nothing before response.completed',
      responsesAdapter,
      frame({ type: 'response.created', response: { usage: null } }),
      null,
    ],
    ['not a stream', chatAdapter, '{"choices":[]}', null],
  ])('%s', (_name, adapter, captured, stated) => {
    expect(statedUsageIn(adapter, Buffer.from(captured))).toEqual(stated);
  });
});
