import { isRecord } from '../core/isRecord.ts';
import { createRequire } from 'node:module';
import type * as O200kEncoding from 'gpt-tokenizer/encoding/o200k_base';

/**
 * Token estimates where the upstream reports no usage, for budget caps before sending, and for
 * Anthropic `count_tokens`. o200k is the encoding of current OpenAI models; other vendors'
 * tokenizers differ by a few percent, which is why rows using it are marked "estimated". The proxy
 * runs these on the tokenizer thread (tokenEstimator.ts), never on the forwarding event loop.
 */

/** Flat estimate per image part: the size is unknown without decoding it; 765 is a 1024x1024 high-detail image. */
export const IMAGE_INPUT_TOKENS_ESTIMATE = 765;
/** Chat framing per message (role and separators) and for priming the reply, per OpenAI's counting guide. */
export const MESSAGE_OVERHEAD_TOKENS = 3;
export const REPLY_PRIMING_TOKENS = 3;
/** Bytes per token where the tokenizer is not used (too large, or unavailable): a deliberate over-estimate for budgets. */
export const BYTES_PER_TOKEN_FALLBACK = 3;

/** Past this many characters a count would keep its request waiting about 10 ms per 100 KB: bytes are counted instead. */
export const TOKENIZE_LIMIT_CHARS = 256 * 1024;

export function byteEstimateTokens(byteLength: number): number {
  return Math.ceil(byteLength / BYTES_PER_TOKEN_FALLBACK);
}

const IMAGE_PART_TYPES = new Set(['image_url', 'image', 'input_image']);
// Special-token text in a prompt is ordinary text to the upstream: count it, never throw.
const PLAIN_TEXT_OPTIONS = { disallowedSpecial: new Set<string>() };

let encoding: typeof O200kEncoding | null = null;

/** The encoding's rank tables are large: load them on first use, not at proxy start. */
function o200k(): typeof O200kEncoding {
  if (encoding === null) {
    const require = createRequire(import.meta.url);
    encoding = require('gpt-tokenizer/encoding/o200k_base') as typeof O200kEncoding;
  }
  return encoding;
}

export function estimateTextTokens(text: string): number {
  if (text.length === 0) return 0;
  return o200k().countTokens(text, PLAIN_TEXT_OPTIONS);
}

/** Tokens of one text: the tokenizer's count, or a bound of it. */
type TextTokens = (text: string) => number;

/**
 * Input tokens of a Chat Completions body (also accepts Anthropic Messages bodies: top-level
 * `system`, `input_schema` tools, tool_use/tool_result blocks). Unknown shapes count as 0.
 */
export function estimateChatInputTokens(body: unknown): number {
  return chatInputTokens(body, estimateTextTokens);
}

/**
 * Never below `estimateChatInputTokens` of the same body, and found without the tokenizer: the
 * same walk, with each text counted as its UTF-8 bytes (a token covers at least one byte).
 */
export function inputTokensUpperBound(body: unknown): number {
  return chatInputTokens(body, (text) => Buffer.byteLength(text));
}

function chatInputTokens(body: unknown, textTokens: TextTokens): number {
  if (!isRecord(body)) return 0;
  let tokens = 0;
  const messages = Array.isArray(body['messages']) ? body['messages'] : [];
  for (const message of messages) {
    if (!isRecord(message)) continue;
    tokens += MESSAGE_OVERHEAD_TOKENS + messageTokens(message, textTokens);
  }
  if (body['system'] !== undefined) tokens += MESSAGE_OVERHEAD_TOKENS + contentTokens(body['system'], textTokens);
  if (Array.isArray(body['tools']) && body['tools'].length > 0) tokens += textTokens(JSON.stringify(body['tools']));
  return messages.length > 0 ? tokens + REPLY_PRIMING_TOKENS : tokens;
}

function messageTokens(message: Record<string, unknown>, textTokens: TextTokens): number {
  let tokens = contentTokens(message['content'], textTokens);
  if (typeof message['name'] === 'string') tokens += textTokens(message['name']);
  if (Array.isArray(message['tool_calls'])) tokens += textTokens(JSON.stringify(message['tool_calls']));
  return tokens;
}

function contentTokens(content: unknown, textTokens: TextTokens): number {
  if (typeof content === 'string') return textTokens(content);
  if (!Array.isArray(content)) return 0;
  let tokens = 0;
  for (const part of content) {
    if (typeof part === 'string') tokens += textTokens(part);
    else if (isRecord(part)) tokens += partTokens(part, textTokens);
  }
  return tokens;
}

function partTokens(part: Record<string, unknown>, textTokens: TextTokens): number {
  const type = part['type'];
  if (typeof type === 'string' && IMAGE_PART_TYPES.has(type)) return IMAGE_INPUT_TOKENS_ESTIMATE;
  if (typeof part['text'] === 'string') return textTokens(part['text']);
  if (type === 'tool_result') return contentTokens(part['content'], textTokens);
  if (type === 'tool_use') return textTokens(JSON.stringify(part['input'] ?? {}));
  return 0;
}
