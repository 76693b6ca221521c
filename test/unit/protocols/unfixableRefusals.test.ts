import { describe, expect, it } from 'vitest';
import { anthropicToChatRequest } from '../../../proxy/protocols/anthropic/request.ts';
import { responsesToChatRequest } from '../../../proxy/protocols/responses/request.ts';
import { translationOptions as options } from './translationOptions.ts';

const responses = (input: unknown, extra: Record<string, unknown> = {}) => responsesToChatRequest({ model: 'm', input, ...extra }, options);

/**
 * What a chat gateway can never serve, whatever the client changes in the request, is refused as
 * unfixable: the planner then asks for no "fix the request and retry" (its message says what to do instead).
 */
describe('refusals no fixed retry can serve through a chat gateway', () => {
  it.each([
    ["Codex's remote compaction request", () => responses([{ role: 'user', content: 'hi' }, { type: 'compaction_trigger' }])],
    [
      'an earlier remote compaction',
      () =>
        responses([
          { type: 'compaction', encrypted_content: 'gAAA' },
          { role: 'user', content: 'hi' },
        ]),
    ],
    [
      'a Responses input_file part',
      () => responses([{ role: 'user', content: [{ type: 'input_file', file_data: 'data:application/pdf;base64,JVBERi0=' }] }]),
    ],
    [
      'an Anthropic document block (PDF)',
      () =>
        anthropicToChatRequest(
          {
            model: 'm',
            max_tokens: 10,
            messages: [
              {
                role: 'user',
                content: [{ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' } }],
              },
            ],
          },
          options,
        ),
    ],
  ])('%s', (_label, translate) => {
    expect(translate()).toMatchObject({ ok: false, status: 400, unfixable: true });
  });

  it.each([
    ['a Responses body that is not an object', () => responsesToChatRequest([], options)],
    ['a Responses request with no messages', () => responses([])],
    ['an input_image without image_url', () => responses([{ role: 'user', content: [{ type: 'input_image', file_id: 'f' }] }])],
    // Its message says to send the whole conversation instead (store: false), which the client can do.
    ['a Responses previous_response_id', () => responses('hi', { previous_response_id: 'resp_1' })],
  ])('%s is a request the client can fix', (_label, translate) => {
    const result = translate();
    expect(result.ok).toBe(false);
    expect(result).not.toHaveProperty('unfixable');
  });
});
