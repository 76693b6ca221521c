import type { ServerResponse } from 'node:http';
import { estimateTokens } from './chatReply.ts';
import { invalidRequest, modelNotFound } from './errors.ts';
import { sendJson, startEventStream } from './respond.ts';
import type { Voice } from './voice.ts';
import { sendGatewayError } from './voice.ts';

/** The instruct model OpenAI still serves on the legacy endpoint; relays (vLLM, new-api) serve it for their chat models too. */
export const LEGACY_COMPLETION_MODEL = 'gpt-3.5-turbo-instruct';

/**
 * The legacy `/v1/completions` (platform.openai.com/docs/api-reference/completions): a `text_completion`
 * with `choices[].text` and `usage`; streamed, `text_completion` chunks with `choices[].text`, the last
 * with its finish_reason, then `data: [DONE]`. Usage comes in a stream only when
 * `stream_options.include_usage` asks for it, as a last chunk with no choices.
 */
export function answerLegacyCompletion(
  response: ServerResponse,
  json: Record<string, unknown>,
  knownModels: ReadonlySet<string>,
  voice: Voice,
  echoedKey: string | null,
): void {
  const { model, prompt } = json;
  if (typeof model !== 'string' || (model !== LEGACY_COMPLETION_MODEL && !knownModels.has(model))) {
    const named = typeof model === 'string' ? model : '';
    sendGatewayError(response, voice, 404, modelNotFound(named), { subject: named });
    return;
  }
  if (typeof prompt !== 'string') {
    sendGatewayError(response, voice, 400, invalidRequest('`prompt` must be a string.', 'invalid_request', 'prompt'));
    return;
  }
  // A model repeats a pasted key: an echoKey fault makes the completion write it.
  const text = ` continues "${prompt.slice(0, 40)}"${echoedKey === null ? '' : ` with ${echoedKey}`} and stops.`;
  const usage = {
    prompt_tokens: estimateTokens(prompt.length),
    completion_tokens: estimateTokens(text.length),
    total_tokens: estimateTokens(prompt.length) + estimateTokens(text.length),
  };
  const head = { id: `cmpl-${voice.requestId}`, object: 'text_completion', created: 1, model };
  if (json.stream !== true) {
    sendJson(response, 200, { ...head, choices: [{ index: 0, text, logprobs: null, finish_reason: 'stop' }], usage });
    return;
  }
  const options = json.stream_options;
  const includeUsage = typeof options === 'object' && options !== null && (options as { include_usage?: unknown }).include_usage === true;
  startEventStream(response);
  // Pieces of 3 characters: a key in the text never arrives in one chunk.
  for (let start = 0; start < text.length; start += 3) {
    response.write(
      `data: ${JSON.stringify({ ...head, choices: [{ index: 0, text: text.slice(start, start + 3), logprobs: null, finish_reason: null }] })}\n\n`,
    );
  }
  response.write(`data: ${JSON.stringify({ ...head, choices: [{ index: 0, text: '', logprobs: null, finish_reason: 'stop' }] })}\n\n`);
  if (includeUsage) response.write(`data: ${JSON.stringify({ ...head, choices: [], usage })}\n\n`);
  response.end('data: [DONE]\n\n');
}
