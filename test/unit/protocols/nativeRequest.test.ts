import { describe, expect, it } from 'vitest';
import { anthropicNativeRequest } from '../../../proxy/protocols/anthropic/nativeRequest.ts';
import { responsesNativeRequest } from '../../../proxy/protocols/responses/nativeRequest.ts';
import { clientCallId } from '../../../proxy/protocols/chat/thoughtSignature.ts';
import { thinkingMark, type RelayThinking } from '../../../proxy/protocols/chat/relayThinking.ts';

const litellmThinking: RelayThinking = { field: 'thinking_blocks', blocks: [{ type: 'thinking', thinking: 'x', signature: 'EqoBsig' }] };
const openrouterThinking: RelayThinking = {
  field: 'reasoning_details',
  blocks: [{ type: 'reasoning.text', text: 'x', signature: 'EqoBsig', format: 'anthropic-claude-v1', index: 0 }],
};

const SIGNER = { gatewayTag: 'gw', upstreamModel: 'gw-model' };

/**
 * The marks a relay's signed thinking rides in (relayThinking.ts): a session that goes native partway
 * hands them back, and no native API can verify them.
 */
const litellmMark = thinkingMark('reasoning_content', litellmThinking, SIGNER);
const openrouterMark = thinkingMark('reasoning', openrouterThinking, SIGNER);
const unnamedRelayMark = `airlock:thinking_blocks:${Buffer.from(JSON.stringify(litellmThinking.blocks)).toString('base64url')}`;

/** What a native request loses of what Airlock's translation gave its client earlier in the session. */
describe('anthropicNativeRequest', () => {
  const signed = { type: 'thinking', thinking: 'real', signature: 'EqQBCkYIBxgCKkA' };

  it.each([
    ['the reasoning_content mark', 'airlock:reasoning_content'],
    ['the reasoning mark', 'airlock:reasoning'],
    ['an empty signature (an Airlock before every block was marked)', ''],
    ["LiteLLM's signed blocks", litellmMark],
    ["OpenRouter's signed blocks", openrouterMark],
    ["a relay's blocks marked before marks named their gateway", unnamedRelayMark],
  ])('leaves out a thinking block with %s, and an assistant turn it leaves empty', (_label, signature) => {
    const messages = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'x', signature }] },
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'y', signature }, signed, { type: 'text', text: 'ok' }] },
    ];
    expect(anthropicNativeRequest.clean({ model: 'm', messages })).toEqual({
      body: {
        model: 'm',
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'user', content: 'go' },
          { role: 'assistant', content: [signed, { type: 'text', text: 'ok' }] },
        ],
      },
      note: 'dropped 2 thinking blocks Airlock made under translation',
    });
  });

  it('leaves a body with only signed thinking, and the mark in plain text, as it is', () => {
    const messages = [
      { role: 'user', content: [{ type: 'text', text: 'what does "airlock:reasoning" mean?' }] },
      { role: 'assistant', content: [signed, { type: 'redacted_thinking', data: 'abc' }] },
    ];
    expect(anthropicNativeRequest.clean({ model: 'm', messages })).toBeNull();
  });
});

describe('responsesNativeRequest', () => {
  it('leaves out the reasoning items Airlock marked, and keeps encrypted ones and ones without content', () => {
    const genuine = { type: 'reasoning', summary: [], encrypted_content: 'gAAAAABo' };
    const stored = { type: 'reasoning', id: 'rs_1', summary: [] };
    const input = [
      { role: 'user', content: 'go' },
      { type: 'reasoning', summary: [{ type: 'summary_text', text: 'a' }], encrypted_content: 'airlock:reasoning_content' },
      { type: 'reasoning', summary: [], encrypted_content: 'airlock:reasoning' },
      genuine,
      stored,
    ];
    expect(responsesNativeRequest.clean({ model: 'm', input })).toEqual({
      body: { model: 'm', input: [input[0], genuine, stored] },
      note: 'dropped 2 reasoning items Airlock made under translation',
    });
    expect(responsesNativeRequest.clean({ model: 'm', input: 'airlock:reasoning' })).toBeNull();
  });

  it("leaves out the reasoning items that carry a relay's signed blocks", () => {
    const input = [
      { role: 'user', content: 'go' },
      { type: 'reasoning', summary: [{ type: 'summary_text', text: 'x' }], encrypted_content: litellmMark },
      { type: 'reasoning', summary: [{ type: 'summary_text', text: 'x' }], encrypted_content: openrouterMark },
      { type: 'reasoning', summary: [], encrypted_content: unnamedRelayMark },
      { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'ls', arguments: '{}' },
    ];
    expect(responsesNativeRequest.clean({ model: 'm', input })).toEqual({
      body: { model: 'm', input: [input[0], input[4]] },
      note: 'dropped 3 reasoning items Airlock made under translation',
    });
  });
});

/** A call id Airlock gave a translated client for a Gemini call it signed (thoughtSignature.ts). */
const signedId = clientCallId('call_g1', `Cs4B+/${'A'.repeat(900)}==`, 'gw');

describe('a session gone native after Gemini turns (OpenAI caps call_id at 64 characters: openai/codex#14355)', () => {
  it('gives a Messages tool_use and its tool_result the gateway id back, leaving other ids alone', () => {
    const messages = [
      { role: 'user', content: 'ls' },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: signedId, name: 'shell', input: {} },
          { type: 'tool_use', id: 'toolu_2', name: 'pwd', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: signedId, content: 'a.txt' },
          { type: 'tool_result', tool_use_id: 'toolu_2', content: '/' },
        ],
      },
    ];
    expect(anthropicNativeRequest.clean({ model: 'm', messages })).toEqual({
      body: {
        model: 'm',
        messages: [
          { role: 'user', content: 'ls' },
          {
            role: 'assistant',
            content: [
              { type: 'tool_use', id: 'call_g1', name: 'shell', input: {} },
              { type: 'tool_use', id: 'toolu_2', name: 'pwd', input: {} },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'call_g1', content: 'a.txt' },
              { type: 'tool_result', tool_use_id: 'toolu_2', content: '/' },
            ],
          },
        ],
      },
      note: "gave 2 tool ids their gateway's form, without a thought signature",
    });
  });

  it('gives a Responses call and its output the gateway id back', () => {
    const input = [
      { role: 'user', content: 'ls' },
      { type: 'function_call', id: 'fc_1', call_id: signedId, name: 'shell', arguments: '{}' },
      { type: 'function_call_output', call_id: signedId, output: 'a.txt' },
    ];
    const cleaned = responsesNativeRequest.clean({ model: 'm', input });
    expect(cleaned?.body.input).toEqual([
      { role: 'user', content: 'ls' },
      { type: 'function_call', id: 'fc_1', call_id: 'call_g1', name: 'shell', arguments: '{}' },
      { type: 'function_call_output', call_id: 'call_g1', output: 'a.txt' },
    ]);
    expect(cleaned?.note).toBe("gave 2 call ids their gateway's form, without a thought signature");
  });

  // Ids are the gateway's to choose: one may hold the separator without Airlock having signed it.
  const gatewayOwnId = 'call__sig_abc';

  it("leaves a Messages body whose ids hold the separator but no signature of Airlock's as it is", () => {
    const messages = [
      { role: 'user', content: 'ls' },
      { role: 'assistant', content: [{ type: 'tool_use', id: gatewayOwnId, name: 'shell', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: gatewayOwnId, content: 'a.txt' }] },
    ];
    expect(anthropicNativeRequest.clean({ model: 'm', messages })).toBeNull();
  });

  it("leaves a Responses body whose call ids hold the separator but no signature of Airlock's as it is", () => {
    const input = [
      { role: 'user', content: 'ls' },
      { type: 'function_call', id: 'fc_1', call_id: gatewayOwnId, name: 'shell', arguments: '{}' },
      { type: 'function_call_output', call_id: gatewayOwnId, output: 'a.txt' },
    ];
    expect(responsesNativeRequest.clean({ model: 'm', input })).toBeNull();
  });

  it('counts only the ids it changed', () => {
    const input = [
      { type: 'function_call', id: 'fc_1', call_id: gatewayOwnId, name: 'shell', arguments: '{}' },
      { type: 'function_call_output', call_id: gatewayOwnId, output: 'a.txt' },
      { type: 'function_call', id: 'fc_2', call_id: signedId, name: 'shell', arguments: '{}' },
      { type: 'function_call_output', call_id: signedId, output: 'b.txt' },
    ];
    const cleaned = responsesNativeRequest.clean({ model: 'm', input });
    expect(cleaned?.note).toBe("gave 2 call ids their gateway's form, without a thought signature");
    expect(cleaned?.body.input).toEqual([input[0], input[1], { ...input[2], call_id: 'call_g1' }, { ...input[3], call_id: 'call_g1' }]);
  });

  it('is looked for only in a body holding the separator (the needles)', () => {
    const body = Buffer.from(JSON.stringify({ input: [{ type: 'function_call_output', call_id: signedId }] }));
    expect(responsesNativeRequest.needles.some((needle) => body.includes(needle))).toBe(true);
    expect(anthropicNativeRequest.needles.some((needle) => body.includes(needle))).toBe(true);
  });
});
