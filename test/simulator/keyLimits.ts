import type { Dialect } from './dialect.ts';
import { errorBody, type SimulatedErrorBody } from './errors.ts';

/**
 * A gateway that limits each key on its own, as the users of key pools meet it: every key has a
 * number of requests it may make, after which its requests get 429 until the test frees it
 * (a test never waits for a window to pass). What the 429 carries depends on the gateway:
 * - OpenAI (and the seed, which follows it): `retry-after` plus `x-ratelimit-limit-requests`,
 *   `x-ratelimit-remaining-requests: 0` and `x-ratelimit-reset-requests` as a Go duration (`20s`),
 *   https://platform.openai.com/docs/guides/rate-limits#rate-limits-in-headers; its SDKs read
 *   `retry-after` (openai-node src/core.ts shouldRetry/retry-after handling).
 * - LiteLLM: `retry-after` on its virtual keys' rpm limit (https://docs.litellm.ai/docs/proxy/users
 *   "rpm_limit", and dialects.ts's throttling_error sources).
 * - new-api: a token's request limit answers 429 with no Retry-After and no rate headers
 *   (new-api middleware/model-rate-limit.go), so the client must guess.
 */
export class KeyRequestLimits {
  #remaining = new Map<string, number>();
  #retryAfterS: number;

  constructor(limits: Record<string, number> = {}, retryAfterS = 20) {
    this.#retryAfterS = retryAfterS;
    this.set(limits);
  }

  /** Replaces the limits: key -> how many more requests it may make (Infinity, or absent: unlimited). */
  set(limits: Record<string, number>, retryAfterS: number = this.#retryAfterS): void {
    this.#remaining = new Map(Object.entries(limits));
    this.#retryAfterS = retryAfterS;
  }

  /** Counts a request made with this key; false when the key has none left and gets 429. */
  admit(key: string | null): boolean {
    if (key === null) return true;
    const remaining = this.#remaining.get(key);
    if (remaining === undefined) return true;
    if (remaining <= 0) return false;
    this.#remaining.set(key, remaining - 1);
    return true;
  }

  headersFor(dialect: Dialect): Record<string, string> {
    if (dialect.name === 'new-api') return {};
    const retryAfter = { 'retry-after': String(this.#retryAfterS) };
    if (dialect.name === 'litellm') return retryAfter;
    return {
      ...retryAfter,
      'x-ratelimit-limit-requests': '3',
      'x-ratelimit-remaining-requests': '0',
      'x-ratelimit-reset-requests': `${this.#retryAfterS}s`,
    };
  }
}

export function keyRateLimited(): SimulatedErrorBody {
  return errorBody('Rate limit reached for requests per minute on this API key.', 'requests', 'rate_limit_exceeded');
}
