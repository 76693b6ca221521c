import { anthropicToChatRequest } from '../../../proxy/protocols/anthropic/request.ts';

import { translationOptions } from './translationOptions.ts';

export const options = translationOptions;
/** The fields every Anthropic Messages request needs besides its messages. */
export const base = { model: 'claude-sonnet-4-5', max_tokens: 1024 };

/** The chat request and notes a translation makes; a refusal fails the test with its message. */
export function chatBodyOf(body: Record<string, unknown>, extraOptions: Partial<typeof options> = {}) {
  const result = anthropicToChatRequest(body, { ...options, ...extraOptions });
  if (!result.ok) throw new Error(`unexpected refusal: ${result.message}`);
  return result;
}
