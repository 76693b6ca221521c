import { describe, expect, it } from 'vitest';
import type { ProtocolAdapter } from '../../../proxy/protocols/adapter.ts';
import { anthropicAdapter } from '../../../proxy/protocols/anthropic/adapter.ts';
import { chatAdapter } from '../../../proxy/protocols/chat/adapter.ts';
import { passthroughAdapter } from '../../../proxy/protocols/passthrough/adapter.ts';
import { responsesAdapter } from '../../../proxy/protocols/responses/adapter.ts';

/**
 * The most output a request may be billed for, from the limit it states: Anthropic's `max_tokens`
 * (required, thinking included), the Responses `max_output_tokens` (reasoning included), chat's
 * `max_completion_tokens` or older `max_tokens`, per choice (`n`), a legacy completion's `max_tokens`
 * for each of the `best_of` it writes (each protocol's API reference).
 */
describe('outputTokenLimit: each protocol reads the output limit of its own requests', () => {
  it.each<[string, ProtocolAdapter, Record<string, unknown>, number | null]>([
    ['Messages', anthropicAdapter, { max_tokens: 32_000 }, 32_000],
    ['Responses', responsesAdapter, { max_output_tokens: 500 }, 500],
    ['Responses without a limit', responsesAdapter, { input: 'hi' }, null],
    ['chat max_tokens', chatAdapter, { max_tokens: 100 }, 100],
    ['chat max_completion_tokens', chatAdapter, { max_completion_tokens: 200 }, 200],
    ['chat with both: the larger bounds it', chatAdapter, { max_completion_tokens: 200, max_tokens: 50 }, 200],
    ['chat with three choices', chatAdapter, { max_tokens: 100, n: 3 }, 300],
    ['chat without a limit', chatAdapter, { n: 3 }, null],
    ['a limit that is no count', chatAdapter, { max_tokens: '100' }, null],
    ['a fractional limit', anthropicAdapter, { max_tokens: 1.5 }, null],
    ['a negative limit', responsesAdapter, { max_output_tokens: -1 }, null],
    ['Messages field read as chat is still chat', chatAdapter, { max_output_tokens: 500 }, null],
    ['passthrough without a limit (embeddings, images)', passthroughAdapter, { n: 4 }, null],
    ['a legacy completion', passthroughAdapter, { max_tokens: 100 }, 100],
    ['a legacy completion with two choices', passthroughAdapter, { max_tokens: 100, n: 2 }, 200],
    ['a legacy completion that writes best_of 3 to return n 2', passthroughAdapter, { max_tokens: 100, n: 2, best_of: 3 }, 300],
    ['a legacy completion of a batch of three prompts', passthroughAdapter, { max_tokens: 100, prompt: ['a', 'b', 'c'] }, 300],
    ['a batch of two token arrays, two choices each', passthroughAdapter, { max_tokens: 100, n: 2, prompt: [[1, 2], [3]] }, 400],
    ['one prompt as an array of tokens', passthroughAdapter, { max_tokens: 100, prompt: [1, 2, 3] }, 100],
  ])('%s', (_name, adapter, body, limit) => {
    expect(adapter.outputTokenLimit(body)).toBe(limit);
  });
});
