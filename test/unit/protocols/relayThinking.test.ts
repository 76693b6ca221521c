import { describe, expect, it } from 'vitest';
import {
  joinedRelayThinking,
  RelayThinkingReader,
  relayThinkingOfMark,
  thinkingMark,
  type RelayThinking,
} from '../../../proxy/protocols/chat/relayThinking.ts';
import { createAnthropicStreamTranslator } from '../../../proxy/protocols/anthropic/stream.ts';
import { base, chatBodyOf } from './anthropicRequestHelpers.ts';
import { fedChunks, parseFrames } from './chatChunks.ts';

/**
 * A relay's thinking blocks as pieces put together (LiteLLM's stream names no block: a block ends
 * with its signature; OpenRouter's go by index, a signature may come after the text moved on), read
 * for the estimate, and carried through a translated client's thinking and back.
 */
const litellm = (...blocks: object[]): RelayThinking => ({ field: 'thinking_blocks', blocks: blocks as Record<string, unknown>[] });
const openrouter = (...blocks: object[]): RelayThinking => ({ field: 'reasoning_details', blocks: blocks as Record<string, unknown>[] });
const joined = (...pieces: RelayThinking[]): RelayThinking | null =>
  pieces.reduce<RelayThinking | null>((earlier, more) => joinedRelayThinking(earlier, more), null);

describe('relay thinking pieces joined into blocks', () => {
  it("LiteLLM's: thinking pieces run on until a signature ends the block; a signature after a signed block starts another", () => {
    const result = joined(
      litellm({ type: 'thinking', thinking: 'Look ', signature: null }),
      litellm({ type: 'thinking', thinking: 'first.', signature: null }),
      litellm({ type: 'thinking', thinking: '', signature: 'SIG1' }),
      litellm({ type: 'thinking', thinking: '', signature: 'SIG2' }),
      litellm({ type: 'redacted_thinking', data: 'REDACTED' }),
    );
    expect(result?.blocks).toEqual([
      { type: 'thinking', thinking: 'Look first.', signature: 'SIG1' },
      { type: 'thinking', thinking: '', signature: 'SIG2' },
      { type: 'redacted_thinking', data: 'REDACTED' },
    ]);
  });

  it("OpenRouter's: pieces go by index and type, a late signature to the text it signs", () => {
    const format = 'anthropic-claude-v1';
    const result = joined(
      openrouter({ type: 'reasoning.text', text: 'Look ', format, index: 0 }),
      openrouter({ type: 'reasoning.text', text: 'first.', format, index: 0 }),
      openrouter({ type: 'reasoning.encrypted', data: 'ENC', format, index: 1 }),
      openrouter({ type: 'reasoning.text', signature: 'SIG', format, index: 0 }),
    );
    expect(result?.blocks).toEqual([
      { type: 'reasoning.text', text: 'Look first.', signature: 'SIG', format, index: 0 },
      { type: 'reasoning.encrypted', data: 'ENC', format, index: 1 },
    ]);
  });
});

describe('relay thinking read for the estimate', () => {
  it('weighs each block by its own index, and counts redacted thinking by its bytes', () => {
    const seen: string[] = [];
    const reader = new RelayThinkingReader({
      onThinking: (blockIndex, text) => seen.push(`thinking ${blockIndex} ${text}`),
      onThinkingSignature: (blockIndex, bytes) => seen.push(`signature ${blockIndex} ${bytes}`),
      onOpaqueOutput: (bytes) => seen.push(`opaque ${bytes}`),
      onOtherOutput: (text) => seen.push(`other ${text}`),
    });
    reader.read(litellm({ type: 'thinking', thinking: 'a', signature: null }, { type: 'thinking', thinking: '', signature: 'AAAA' }));
    reader.read(litellm({ type: 'redacted_thinking', data: 'AAAAAAAA' }, { type: 'thinking', thinking: 'b', signature: 'AAAA' }));
    reader.read(openrouter({ type: 'reasoning.summary', summary: 'in short' }));
    expect(seen).toEqual(['thinking 0 a', 'signature 0 3', 'opaque 6', 'thinking 1 b', 'signature 1 3', 'other in short']);
  });
});

describe("relay thinking carried in a translated client's thinking", () => {
  it('marks signed blocks only, and reads back only its own marks, for the gateway and model that signed them', () => {
    const signed = litellm({ type: 'thinking', thinking: 'a', signature: 'SIG' });
    const signer = { gatewayTag: 'gw', upstreamModel: 'claude-sonnet-4-5' };
    const mark = thinkingMark('reasoning_content', signed, signer);
    expect(relayThinkingOfMark(mark, signer)).toEqual(signed);
    expect(relayThinkingOfMark(mark, { ...signer, gatewayTag: 'other-gw' })).toBeNull();
    // Claude's signatures verify on the model that made them only: a fallback step to another model gets none.
    expect(relayThinkingOfMark(mark, { ...signer, upstreamModel: 'claude-haiku-4-5' })).toBeNull();
    expect(thinkingMark('reasoning', openrouter({ type: 'reasoning.text', text: 'a', index: 0 }), signer)).toBe('airlock:reasoning:gw');
    // A mark with this signer's own prefix whose payload is not Airlock's JSON.
    const signerPrefix = mark.slice(0, mark.lastIndexOf(':') + 1);
    expect(relayThinkingOfMark(`${signerPrefix}bm90IGpzb24`, signer)).toBeNull();
    expect(relayThinkingOfMark('EqoBCkgIARAB', signer)).toBeNull();
    // Made before marks named their gateway: whose it was is unknown.
    const unnamed = `airlock:thinking_blocks:${Buffer.from(JSON.stringify(signed.blocks)).toString('base64url')}`;
    expect(relayThinkingOfMark(unnamed, signer)).toBeNull();
  });

  it('goes back on the tool-call turn whole, though its signature came after the text moved on', () => {
    const format = 'anthropic-claude-v1';
    const translator = fedChunks(
      createAnthropicStreamTranslator({
        gatewayTag: 'gw',
        upstreamModel: 'gw-model',
        requestedModel: 'claude-sonnet-4-5',
        messageId: 'msg_1',
      }),
    );
    const delta = (fields: object, finishReason: string | null = null) => ({
      choices: [{ index: 0, delta: fields, finish_reason: finishReason }],
    });
    const frames = parseFrames([
      ...translator.push(delta({ reasoning: 'Look ', reasoning_details: [{ type: 'reasoning.text', text: 'Look ', format, index: 0 }] })),
      ...translator.push(delta({ reasoning: 'first.', reasoning_details: [{ type: 'reasoning.text', text: 'first.', format, index: 0 }] })),
      ...translator.push(delta({ content: 'Looking.' })),
      ...translator.push(delta({ reasoning_details: [{ type: 'reasoning.text', signature: 'SIG', format, index: 0 }] })),
      ...translator.push(delta({ tool_calls: [{ index: 0, id: 'toolu_1', function: { name: 'ls', arguments: '{}' } }] })),
      ...translator.push(delta({}, 'tool_calls')),
      ...translator.finish(),
    ]);
    // The content Claude Code hands back: each block as its events built it.
    const content: Record<string, unknown>[] = [];
    for (const { event, data } of frames) {
      if (event === 'content_block_start') content.push({ ...(data['content_block'] as object) });
      const last = content.at(-1) ?? {};
      const piece = (data['delta'] ?? {}) as Record<string, string>;
      if (piece['type'] === 'thinking_delta') last['thinking'] = `${String(last['thinking'])}${piece['thinking']}`;
      if (piece['type'] === 'text_delta') last['text'] = `${String(last['text'])}${piece['text']}`;
      if (piece['type'] === 'signature_delta') last['signature'] = piece['signature'];
    }
    const { chatBody } = chatBodyOf({
      ...base,
      messages: [
        { role: 'user', content: 'a' },
        { role: 'assistant', content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'a.txt' }] },
      ],
    });
    expect((chatBody['messages'] as Record<string, unknown>[])[1]).toEqual({
      role: 'assistant',
      content: 'Looking.',
      tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'ls', arguments: '{}' } }],
      reasoning_details: [{ type: 'reasoning.text', text: 'Look first.', signature: 'SIG', format, index: 0 }],
    });
  });
});
