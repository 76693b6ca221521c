import { describe, expect, it } from 'vitest';
import { createAnthropicStreamTranslator } from '../../../proxy/protocols/anthropic/stream.ts';
import { chatCallIdentity } from '../../../proxy/protocols/chat/thoughtSignature.ts';
import { createResponsesStreamTranslator } from '../../../proxy/protocols/responses/stream.ts';
import { fedChunks, finishChunk, parseFrames, type SseFrame } from './chatChunks.ts';

/**
 * Gemini signs a step's first function call (`extra_content.google.thought_signature`, Google's
 * thought-signatures guide); a relay that re-chunks the call may put the field on any of its pieces,
 * not only the first (clients that kept only the first piece's fields lost it: ServiceNow/eva#206
 * merges it from every streamed chunk). The signature is read from whichever piece carries it.
 */
const SIGNATURE = 'Cs4B+/late==';

function piece(fields: { index?: number; id?: string; name?: string; arguments: string; signed?: boolean }): object {
  const call = {
    index: fields.index ?? 0,
    ...(fields.id === undefined ? {} : { id: fields.id, type: 'function' }),
    function: { ...(fields.name === undefined ? {} : { name: fields.name }), arguments: fields.arguments },
    ...(fields.signed === true ? { extra_content: { google: { thought_signature: SIGNATURE } } } : {}),
  };
  return { id: 'chatcmpl-1', choices: [{ index: 0, delta: { tool_calls: [call] }, finish_reason: null }] };
}

const LATE_SIGNED_CALL = [
  piece({ id: 'call_1', name: 'shell', arguments: '{"command":' }),
  piece({ arguments: '"ls"}', signed: true }),
  finishChunk('tool_calls'),
];

function translated(translator: Parameters<typeof fedChunks>[0], chunks: object[]): SseFrame[] {
  const fed = fedChunks(translator);
  return parseFrames([...chunks.flatMap((chunk) => fed.push(chunk)), ...fed.finish()]);
}

describe('a signature on a later piece of a streamed call', () => {
  it('reaches Codex in the call it records (output_item.done) and in response.completed', () => {
    const frames = translated(
      createResponsesStreamTranslator({ gatewayTag: 'gw', upstreamModel: 'gw-model', requestedModel: 'gpt-5-codex', responseId: 'resp_1' }),
      LATE_SIGNED_CALL,
    );
    const done = frames.find((frame) => frame.event === 'response.output_item.done')?.data.item as { call_id: string };
    expect(chatCallIdentity(done.call_id, 'gw')).toEqual({ id: 'call_1', extra_content: { google: { thought_signature: SIGNATURE } } });
    const completed = frames.find((frame) => frame.event === 'response.completed')?.data.response as { output: { call_id: string }[] };
    expect(completed.output[0]?.call_id).toBe(done.call_id);
  });

  it('reaches Claude Code in the id of a call not yet begun for it (a second call, held behind the first)', () => {
    const frames = translated(
      createAnthropicStreamTranslator({
        gatewayTag: 'gw',
        upstreamModel: 'gw-model',
        requestedModel: 'claude-sonnet-4-5',
        messageId: 'msg_1',
      }),
      [
        piece({ id: 'call_0', name: 'read', arguments: '{}' }),
        piece({ index: 1, id: 'call_1', name: 'shell', arguments: '{"command":' }),
        piece({ index: 1, arguments: '"ls"}', signed: true }),
        finishChunk('tool_calls'),
      ],
    );
    const ids = frames
      .filter((frame) => frame.event === 'content_block_start')
      .map((frame) => (frame.data.content_block as { id: string }).id);
    expect(ids.map((id) => chatCallIdentity(id, 'gw'))).toEqual([
      { id: 'call_0' },
      { id: 'call_1', extra_content: { google: { thought_signature: SIGNATURE } } },
    ]);
  });
});
