import { describe, expect, it } from 'vitest';
import { chatToAnthropicResponse } from '../../../proxy/protocols/anthropic/response.ts';
import { anthropicToChatRequest } from '../../../proxy/protocols/anthropic/request.ts';
import { chatToResponsesResponse } from '../../../proxy/protocols/responses/response.ts';
import { responsesToChatRequest } from '../../../proxy/protocols/responses/request.ts';
import { translationOptions } from './translationOptions.ts';

/**
 * Thinking a translated client hands back goes only to the gateway whose answer it came in: a fallback
 * step's gateway never sent the relay's blocks or DeepSeek's reasoning_content, and a strict one refuses
 * a member it does not know ("Extra inputs are not permitted", BerriAI/litellm#15758).
 */
const MADE_BY = 'gateway-that-answered';
const FALLBACK = 'fallback-gateway';
const requestOptions = (gatewayTag: string) => ({ ...translationOptions, gatewayTag });

/** A chat answer that called a tool after thinking: LiteLLM's signed blocks, OpenRouter's, or DeepSeek's plain reasoning_content. */
const toolTurnAnswer = (thinking: Record<string, unknown>) => ({
  id: 'chatcmpl-1',
  model: 'claude-sonnet-4-5',
  choices: [
    {
      index: 0,
      finish_reason: 'tool_calls',
      message: {
        role: 'assistant',
        content: null,
        ...thinking,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'ls', arguments: '{}' } }],
      },
    },
  ],
  usage: { prompt_tokens: 5, completion_tokens: 5 },
});

const THINKING = {
  litellm: {
    reasoning_content: 'Look first.',
    thinking_blocks: [{ type: 'thinking', thinking: 'Look first.', signature: 'SIG' }],
  },
  openrouter: {
    reasoning: 'Look first.',
    reasoning_details: [{ type: 'reasoning.text', text: 'Look first.', signature: 'SIG', format: 'anthropic-claude-v1', index: 0 }],
  },
  deepseek: { reasoning_content: 'Look first.' },
};

function claudeCodeToolTurn(thinking: Record<string, unknown>, sentTo: string): Record<string, unknown> {
  const answer = chatToAnthropicResponse(toolTurnAnswer(thinking), {
    requestedModel: 'claude-sonnet-4-5',
    gatewayTag: MADE_BY,
    upstreamModel: 'gw-model',
  });
  if (!answer.ok) throw new Error(answer.message);
  const content = (answer.body as { content: unknown[] }).content;
  const request = {
    model: 'claude-sonnet-4-5',
    max_tokens: 1024,
    messages: [
      { role: 'user', content: 'list' },
      { role: 'assistant', content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: 'a.txt' }] },
    ],
  };
  const translated = anthropicToChatRequest(request, requestOptions(sentTo));
  if (!translated.ok) throw new Error(translated.message);
  return (translated.chatBody['messages'] as Record<string, unknown>[])[1] as Record<string, unknown>;
}

function codexToolTurn(thinking: Record<string, unknown>, sentTo: string): Record<string, unknown> {
  const answer = chatToResponsesResponse(toolTurnAnswer(thinking), {
    requestedModel: 'gpt-5-codex',
    responseId: 'resp_1',
    gatewayTag: MADE_BY,
    upstreamModel: 'gw-model',
  });
  if (!answer.ok) throw new Error(answer.message);
  const output = (answer.body as { output: unknown[] }).output;
  const request = {
    model: 'gpt-5-codex',
    input: [
      { type: 'message', role: 'user', content: 'list' },
      ...output,
      { type: 'function_call_output', call_id: 'call_1', output: 'a.txt' },
    ],
  };
  const translated = responsesToChatRequest(request, requestOptions(sentTo));
  if (!translated.ok) throw new Error(translated.message);
  return (translated.chatBody['messages'] as Record<string, unknown>[])[1] as Record<string, unknown>;
}

const THINKING_MEMBERS = ['thinking_blocks', 'reasoning_details', 'reasoning_content'];
const thinkingMembersOf = (turn: Record<string, unknown>) => THINKING_MEMBERS.filter((member) => member in turn);

describe.each([
  ['Claude Code', claudeCodeToolTurn],
  ['Codex', codexToolTurn],
])("%s's tool turn handed back", (_client, toolTurn) => {
  it.each([
    ['LiteLLM', THINKING.litellm, ['thinking_blocks']],
    ['OpenRouter', THINKING.openrouter, ['reasoning_details']],
    ['DeepSeek', THINKING.deepseek, ['reasoning_content']],
  ])("carries %s's thinking back to the gateway that sent it, and to no other", (_gateway, thinking, members) => {
    expect(thinkingMembersOf(toolTurn(thinking, MADE_BY))).toEqual(members);
    expect(thinkingMembersOf(toolTurn(thinking, FALLBACK))).toEqual([]);
  });
});
