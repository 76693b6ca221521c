import { isRecord } from '../../core/isRecord.ts';
import type { ProtocolAdapter } from '../adapter.ts';
import { openAiErrors } from '../chat/errors.ts';
import { ChatKeyGuard } from '../chat/keyGuard.ts';
import { usageFromChatResponse, usageWithStatedPrice } from '../chat/usage.ts';
import { openAiAnswerErrorOf } from '../declaredError.ts';
import { modelOf, tokenLimitOf } from '../fields.ts';
import { responsesUsageOf } from '../responses/usage.ts';
import { audioUsageOf } from './audioUsage.ts';
import { PassthroughStreamObserver } from './observer.ts';
import { totalTokensUsageOf } from './totalTokensUsage.ts';

/**
 * Everything else a gateway offers under /v1 (models, embeddings, images, audio, tasks): passed
 * through as it is, observed only for usage and completeness. Errors are OpenAI-shaped. Usage comes
 * as chat's `prompt_tokens` (embeddings), as `input_tokens`/`output_tokens` (images, audio), as
 * seconds of audio (whisper-1's transcriptions, audioUsage.ts), or as a `total_tokens` alone (rerank).
 */
/** An images answer's images: `data` items with a `url` or `b64_json`. */
const IMAGE_ITEMS = { member: 'data', keys: ['url', 'b64_json'] } as const;

export const passthroughAdapter: ProtocolAdapter = {
  name: 'openai',
  endpoints: {},
  errors: openAiErrors,
  stream: {
    observer: (sink, options) => new PassthroughStreamObserver(sink, options),
    // Legacy completions stream `choices[].text`, which the chat guard watches too.
    keyGuard: (masker) => new ChatKeyGuard(masker),
  },
  readAnswer: (json, _endpoint, headers) => {
    const usage = (json as { usage?: unknown }).usage;
    const images = imagesIn(json);
    return {
      usage: usageWithStatedPrice(
        usageFromChatResponse(json) ??
          audioUsageOf(json as Record<string, unknown>) ??
          responsesUsageOf(usage) ??
          totalTokensUsageOf(json as Record<string, unknown>),
        headers,
      ),
      model: modelOf(json),
      error: openAiAnswerErrorOf(json as Record<string, unknown>),
      ...(images > 1 ? { calls: images } : {}),
    };
  },
  // Embeddings, images and audio state no output limit; a legacy completion does (legacyCompletionOutputLimit).
  outputTokenLimit: legacyCompletionOutputLimit,
  // An images request's `n` (OpenAI's default is 1): each image is billed, as its answer's images are counted.
  perCallCount: (body) => Math.max(tokenLimitOf(body['n']) ?? 1, 1),
  billedAnswerItems: IMAGE_ITEMS,
};

/**
 * A legacy completion's (`/v1/completions`) output bound: `max_tokens` for each of `best_of`
 * completions the gateway writes for each prompt, of which it returns `n` (best_of defaults to n;
 * OpenAI bills every one written: platform.openai.com/docs/api-reference/completions/create). No
 * other request passed through states `max_tokens`, so the members alone tell it apart; null without one.
 */
function legacyCompletionOutputLimit(body: Record<string, unknown>): number | null {
  const limit = tokenLimitOf(body['max_tokens']);
  if (limit === null) return null;
  return limit * promptCount(body['prompt']) * Math.max(tokenLimitOf(body['n']) ?? 1, tokenLimitOf(body['best_of']) ?? 1, 1);
}

/**
 * How many prompts a legacy completion sends: its `prompt` may be a batch, an array of strings or
 * of token arrays, each completed on its own (same reference); one string, or one array of tokens, is one.
 */
function promptCount(prompt: unknown): number {
  if (!Array.isArray(prompt) || prompt.length === 0) return 1;
  return typeof prompt[0] === 'string' || Array.isArray(prompt[0]) ? prompt.length : 1;
}

/** The top-level members of an answer passed through that hold what its model wrote: a legacy completion's text. */
export const WRITTEN_MEMBERS: readonly string[] = ['choices'];

/**
 * The images an images answer holds (`data` items with a `url` or `b64_json`): priced per image, as
 * OpenAI bills them and relays do (`n` times the price). An embeddings answer's `data` holds none.
 */
function imagesIn(json: object): number {
  const data = (json as Record<string, unknown>)[IMAGE_ITEMS.member];
  if (!Array.isArray(data)) return 0;
  return data.filter((item) => isRecord(item) && IMAGE_ITEMS.keys.some((key) => typeof item[key] === 'string')).length;
}
