import { z } from 'zod';
import { keyPoolSchema } from './keyPool.ts';
import { CONTROL_TOKEN_ACCOUNT } from './secretStore.ts';

/**
 * The profile file's schema, shared by the proxy (which validates the file), the CLI and the
 * window (which validates forms). Keys are never part of a profile: the OS keychain holds them.
 */
export const PROFILE_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;

export const timeoutsSchema = z.object({
  connectTimeoutMs: z.number().int().min(100).max(120_000).default(10_000),
  /** Between bytes (and before the first byte): long, because reasoning models pause. */
  idleTimeoutMs: z.number().int().min(1_000).max(3_600_000).default(300_000),
  totalTimeoutMs: z.number().int().min(1_000).max(86_400_000).default(1_800_000),
});

export const retryPolicySchema = z.object({
  /** docs/gateway-spec.md §7 rule 1: waits of about 1, 2, 4 s, then stop. */
  maxRetries: z.number().int().min(0).max(3).default(3),
  /** A Retry-After longer than this is not waited for: the error goes back to the client. */
  maxRetryAfterMs: z.number().int().min(0).max(60_000).default(8_000),
});

/**
 * The largest price (credits per 1M tokens, or per call) and multiplier Airlock takes. The dearest
 * models cost a few thousand credits per 1M tokens; the bound leaves room for a profile priced in a
 * small unit (a gateway's quota points: new-api counts 500,000 to the dollar; rupiah). A price near the largest double made the
 * running sums Infinity, then NaN, which no cap compares as reached. Under these bounds a sum of
 * safe-integer token counts stays a finite number.
 */
export const MAX_PRICE_CREDITS = 1_000_000_000;
export const MAX_PRICE_MULTIPLIER = 1000;
const priceSchema = z
  .number()
  .min(0)
  .max(MAX_PRICE_CREDITS, `at most ${MAX_PRICE_CREDITS} credits: a higher price is no model's and would make spend totals overflow`);
/** The multiplier of prices as listed: what a profile has when none is given (a blank field too). */
export const NO_PRICE_MULTIPLIER = 1;
export const priceMultiplierSchema = z
  .number()
  .positive()
  .max(MAX_PRICE_MULTIPLIER, `at most ${MAX_PRICE_MULTIPLIER}: a higher multiplier would make spend totals overflow`);

export const modelPriceSchema = z.object({
  model: z.string().min(1),
  inputPer1M: priceSchema.optional(),
  outputPer1M: priceSchema.optional(),
  cachedInputPer1M: priceSchema.optional(),
  /** Prompt-cache writes for 5 minutes; absent: 1.25x the input price, as Anthropic bills them. */
  cacheWritePer1M: priceSchema.optional(),
  /** Prompt-cache writes for 1 hour; absent: 2x the input price, as Anthropic bills them. */
  cacheWrite1hPer1M: priceSchema.optional(),
  perCall: priceSchema.optional(),
  /**
   * Per minute of input audio, billed to the second: how whisper-1 is priced (OpenAI's and
   * OpenRouter's lists say $0.006 a minute), and the unit price lists use for it.
   */
  perAudioMinute: priceSchema.optional(),
  /**
   * Per second of video a creation asks for: how OpenAI prices Sora (sora-2 at $0.10 a second,
   * developers.openai.com pricing) and relays copying its Videos API do. Counted before sending.
   */
  perVideoSecond: priceSchema.optional(),
  /** Per 1M characters of text to speak: how OpenAI prices tts-1 ($15) and tts-1-hd ($30). Counted before sending. */
  perMillionCharacters: priceSchema.optional(),
});

export const budgetSchema = z.object({
  dailyCredits: z.number().positive().optional(),
  monthlyCredits: z.number().positive().optional(),
  perRequestInputCredits: z.number().positive().optional(),
});

/** A wildcard model route: `*` matches any run of characters, matched case-insensitively. */
export const modelRouteSchema = z.object({ pattern: z.string().min(1), target: z.string().min(1) });

export const protocolModeSettingSchema = z.enum(['auto', 'native', 'translate']);

/**
 * The largest request body Airlock accepts for a profile, in MiB. 64 is above what the big
 * upstreams take in one request (Anthropic Messages 32 MB, OpenAI 50 MB of images), so a request a
 * gateway could accept is not refused here, and it bounds what one request can make Airlock hold.
 */
export const DEFAULT_MAX_REQUEST_BODY_MIB = 64;
export const maxRequestBodyMibSchema = z
  .number('must be a number')
  .int('must be a whole number of MiB')
  .min(1, 'must be at least 1 MiB')
  .max(1024, 'must be at most 1024 MiB');

/**
 * One step of a profile's fallback list: another model on the same profile (`model` alone), or
 * another profile (`profileId`, with `model` when it should not be the model the client named).
 * A model named here goes through the target profile's aliases and routes like a client's.
 */
export const fallbackEntrySchema = z
  .object({
    profileId: z.string().regex(PROFILE_ID_PATTERN, 'a profile id: lowercase letters, digits, - and _').optional(),
    model: z.string().trim().min(1, 'a model name, or leave it out').optional(),
  })
  .refine((entry) => entry.profileId !== undefined || entry.model !== undefined, 'name another model, another profile, or both');

/** At most this many fallbacks per profile: each one is a further request while the client waits. */
export const MAX_FALLBACKS = 5;

export const profileSchema = z.object({
  id: z
    .string()
    .regex(PROFILE_ID_PATTERN, 'lowercase letters, digits, - and _ (at most 64)')
    // A profile's key is the keychain account named by its id: this one would share the control token's.
    .refine(
      (id) => id !== CONTROL_TOKEN_ACCOUNT,
      `"${CONTROL_TOKEN_ACCOUNT}" is reserved (Airlock keeps its own token under it): pick another id`,
    ),
  name: z.string().min(1).max(100),
  baseUrl: z.string().min(1),
  modelAliases: z.record(z.string(), z.string()).default({}),
  modelRoutes: z.array(modelRouteSchema).default([]),
  protocolModes: z
    .object({ messages: protocolModeSettingSchema.default('auto'), responses: protocolModeSettingSchema.default('auto') })
    .default({ messages: 'auto', responses: 'auto' }),
  timeouts: timeoutsSchema.default(timeoutsSchema.parse({})),
  retry: retryPolicySchema.default(retryPolicySchema.parse({})),
  prices: z.array(modelPriceSchema).default([]),
  priceMultiplier: priceMultiplierSchema.default(NO_PRICE_MULTIPLIER),
  budget: budgetSchema.default({}),
  maxRequestBodyMiB: maxRequestBodyMibSchema.default(DEFAULT_MAX_REQUEST_BODY_MIB),
  /** Tried in order when a request failed before any byte reached its client (proxy/forward/fallback.ts). */
  fallbacks: z.array(fallbackEntrySchema).max(MAX_FALLBACKS, `at most ${MAX_FALLBACKS} fallbacks`).default([]),
  /** Several keys used in turn (contracts/keyPool.ts); absent: the profile's single key, as before pools. */
  keyPool: keyPoolSchema.optional(),
});

export type RetryPolicy = z.infer<typeof retryPolicySchema>;
export type ModelPrice = z.infer<typeof modelPriceSchema>;
export type Budget = z.infer<typeof budgetSchema>;
export type ModelRoute = z.infer<typeof modelRouteSchema>;
export type ProtocolModeSetting = z.infer<typeof protocolModeSettingSchema>;
export type FallbackEntry = z.infer<typeof fallbackEntrySchema>;
export type Profile = z.infer<typeof profileSchema>;
export type ProfileInput = z.input<typeof profileSchema>;

/**
 * What is wrong with a profile's fallback list, one sentence each naming the entry and the fix:
 * a step back to the profile itself, or a profile that does not exist. The schema cannot say it
 * (it sees one profile); forms and the CLI ask before saving, and the proxy skips such a step.
 */
export function fallbackProblems(profile: Pick<Profile, 'id' | 'fallbacks'>, profileIds: readonly string[]): string[] {
  const problems: string[] = [];
  profile.fallbacks.forEach((entry, index) => {
    const which = `Fallback ${index + 1}`;
    if (entry.profileId === undefined || entry.profileId === profile.id) {
      if (entry.model === undefined)
        problems.push(`${which} sends the request back to profile "${profile.id}" unchanged: name another profile or a model.`);
      return;
    }
    if (!profileIds.includes(entry.profileId)) {
      problems.push(`${which} names profile "${entry.profileId}", which does not exist: add that profile or remove the fallback.`);
    }
  });
  return problems;
}

/** How a fallback step reads in the window, the CLI and the log: `model`, `profile`, or `profile/model`. */
export function describeFallback(entry: FallbackEntry): string {
  if (entry.profileId === undefined) return entry.model ?? '';
  return entry.model === undefined ? entry.profileId : `${entry.profileId}/${entry.model}`;
}
