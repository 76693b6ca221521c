import { estimateTokens } from './chatReply.ts';
import type { Validated } from './chatRequest.ts';
import { invalidRequest, modelNotFound } from './errors.ts';

export const EMBEDDING_DIMENSIONS = 8;

export interface EmbeddingsRequest {
  model: string;
  inputs: string[];
}

export function validateEmbeddingsRequest(json: Record<string, unknown>, knownModels: ReadonlySet<string>): Validated<EmbeddingsRequest> {
  const { model, input } = json;
  if (typeof model !== 'string' || model === '') {
    return { ok: false, status: 400, body: invalidRequest('You must provide a model parameter.', 'missing_required_parameter', 'model') };
  }
  const inputs = typeof input === 'string' ? [input] : input;
  if (!Array.isArray(inputs) || inputs.length === 0 || !inputs.every((item) => typeof item === 'string')) {
    return {
      ok: false,
      status: 400,
      body: invalidRequest('`input` must be a string or a non-empty array of strings.', 'invalid_request', 'input'),
    };
  }
  if (!knownModels.has(model)) return { ok: false, status: 404, body: modelNotFound(model) };
  return { ok: true, value: { model, inputs: inputs as string[] } };
}

/** FNV-1a: a stable seed so the same text always gets the same vector. */
function hashText(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** A deterministic unit-length vector derived from the text. */
export function embedText(text: string): number[] {
  let state = hashText(text) || 1;
  const raw: number[] = [];
  for (let index = 0; index < EMBEDDING_DIMENSIONS; index += 1) {
    // xorshift32 walks the seed into independent-looking components.
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    raw.push(state / 0xffffffff - 0.5);
  }
  const length = Math.hypot(...raw);
  return raw.map((value) => value / length);
}

export function embeddingsBody(request: EmbeddingsRequest): object {
  const promptTokens = request.inputs.reduce((sum, text) => sum + estimateTokens(text.length), 0);
  return {
    object: 'list',
    data: request.inputs.map((text, index) => ({ object: 'embedding', index, embedding: embedText(text) })),
    model: request.model,
    usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
  };
}
