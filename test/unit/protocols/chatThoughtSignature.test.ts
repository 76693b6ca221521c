import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../../proxy/protocols/chat/chatMessages.ts';
import {
  chatCallId,
  chatCallIdentity,
  clientCallId,
  signaturesOfCurrentTurnOnly,
  thoughtSignatureOf,
} from '../../../proxy/protocols/chat/thoughtSignature.ts';
import { gatewayTagOf } from '../../../proxy/protocols/chat/returnedReasoning.ts';

/** Anthropic's tool_use ids: letters, digits, `_` and `-` (its Messages API refuses others). */
const ANTHROPIC_ID = /^[A-Za-z0-9_-]+$/;
/** The gateway that signed the calls, and a fallback step's (gatewayTagOf). */
const SIGNED_BY = gatewayTagOf('https://generativelanguage.googleapis.com/v1beta/openai');
const FALLBACK = gatewayTagOf('https://api.mistral.ai/v1');

describe('thoughtSignatureOf', () => {
  it.each([
    { name: 'a signed call', call: { id: 'c1', extra_content: { google: { thought_signature: 'Cs4B+/x==' } } }, expected: 'Cs4B+/x==' },
    { name: 'no extra_content', call: { id: 'c1' }, expected: null },
    { name: 'an empty signature', call: { extra_content: { google: { thought_signature: '' } } }, expected: null },
    { name: 'a signature that is no string', call: { extra_content: { google: { thought_signature: 7 } } }, expected: null },
    { name: 'another vendor', call: { extra_content: { other: { thought_signature: 'x' } } }, expected: null },
    { name: 'not an object', call: 'c1', expected: null },
  ])('$name -> $expected', ({ call, expected }) => {
    expect(thoughtSignatureOf(call)).toBe(expected);
  });
});

describe('a call id round trip through a client', () => {
  it.each([
    { name: 'Gemini-style base64 with + / and padding', id: 'function-call-1234', signature: 'Cs4B+/AbC==' },
    { name: 'a signature with characters outside base64', id: 'call_abc', signature: 'ünï code ✓' },
    { name: 'an id holding underscores', id: 'call__x_y', signature: 'CiQB' },
  ])('$name: the client id is a valid Anthropic id and gives the call and the signature back', ({ id, signature }) => {
    const clientId = clientCallId(id, signature, SIGNED_BY);
    expect(clientId).toMatch(ANTHROPIC_ID);
    expect(chatCallIdentity(clientId, SIGNED_BY)).toEqual({ id, extra_content: { google: { thought_signature: signature } } });
    expect(chatCallId(clientId)).toBe(id);
  });

  it('leaves an unsigned call id as it is, both ways', () => {
    expect(clientCallId('call_1', null, SIGNED_BY)).toBe('call_1');
    expect(chatCallIdentity('call_1', SIGNED_BY)).toEqual({ id: 'call_1' });
    expect(chatCallId('toolu_01ABC')).toBe('toolu_01ABC');
  });
});

describe('the gateway a signature goes back to', () => {
  it("goes to the gateway that signed the call, and to a fallback step's as the plain call", () => {
    const clientId = clientCallId('call_g1', 'Cs4B+/AbC==', SIGNED_BY);
    expect(chatCallIdentity(clientId, SIGNED_BY)).toEqual({
      id: 'call_g1',
      extra_content: { google: { thought_signature: 'Cs4B+/AbC==' } },
    });
    expect(chatCallIdentity(clientId, FALLBACK)).toEqual({ id: 'call_g1' });
    expect(chatCallId(clientId)).toBe('call_g1');
  });

  it('an id signed before signed ids named their gateway goes back as its plain call, its signature to no gateway', () => {
    const untagged = `call_g1__sig_${Buffer.from('airlock-sig:Cs4B+/AbC==').toString('base64url')}`;
    expect(chatCallIdentity(untagged, SIGNED_BY)).toEqual({ id: 'call_g1' });
    expect(chatCallIdentity(untagged, FALLBACK)).toEqual({ id: 'call_g1' });
    expect(chatCallId(untagged)).toBe('call_g1');
  });
});

describe('signaturesOfCurrentTurnOnly', () => {
  const signed = (id: string) => ({
    ...chatCallIdentity(clientCallId(id, `sig-${id}`, SIGNED_BY), SIGNED_BY),
    type: 'function' as const,
    function: { name: 'ls', arguments: '{}' },
  });
  const plain = (id: string) => ({ id, type: 'function' as const, function: { name: 'ls', arguments: '{}' } });

  it('keeps the signatures since the user last wrote (a message after tool results, as their images, is not that), and drops older ones', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'first' },
      { role: 'assistant', content: null, tool_calls: [signed('a')] },
      { role: 'tool', tool_call_id: 'a', content: 'x' },
      { role: 'assistant', content: 'Done.' },
      { role: 'user', content: 'second' },
      { role: 'assistant', content: null, tool_calls: [signed('b')] },
      { role: 'tool', tool_call_id: 'b', content: 'y' },
      { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AA' } }] },
      { role: 'assistant', content: null, tool_calls: [signed('c')] },
      { role: 'tool', tool_call_id: 'c', content: 'z' },
    ];
    signaturesOfCurrentTurnOnly(messages);
    const calls = messages.flatMap((message) => (message.role === 'assistant' ? (message.tool_calls ?? []) : []));
    expect(calls).toEqual([plain('a'), signed('b'), signed('c')]);
  });
});

describe('a gateway id that itself holds the separator', () => {
  it.each(['call__sig_abc', 'fc__sig_YWJj', 'a__sig___sig_b'])('%s, unsigned, goes back to the gateway whole', (id) => {
    expect(chatCallIdentity(id, SIGNED_BY)).toEqual({ id });
    expect(chatCallId(id)).toBe(id);
  });

  it('signed, is split only where Airlock folded the signature in', () => {
    const clientId = clientCallId('fn__sig_YWJj', 'Cs4B+/x==', SIGNED_BY);
    expect(chatCallIdentity(clientId, SIGNED_BY)).toEqual({
      id: 'fn__sig_YWJj',
      extra_content: { google: { thought_signature: 'Cs4B+/x==' } },
    });
    expect(chatCallId(clientId)).toBe('fn__sig_YWJj');
  });
});
