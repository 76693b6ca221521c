import { typedNumber } from '../../../proxy/contracts/amounts.ts';
import { profileSchema, type Profile } from '../../../proxy/contracts/profile.ts';
import type { ProfileUpdateRequest } from '../../../proxy/contracts/profileViews.ts';

export type ProtocolModeSetting = Profile['protocolModes']['messages'];

export interface PairRow {
  from: string;
  to: string;
}

/** The profile form as typed: numbers stay strings until validated, so half-typed values are kept. */
export interface ProfileForm {
  id: string;
  name: string;
  baseUrl: string;
  aliases: PairRow[];
  routes: PairRow[];
  connectTimeoutMs: string;
  idleTimeoutMs: string;
  totalTimeoutMs: string;
  maxRetries: string;
  maxRetryAfterMs: string;
  maxRequestBodyMiB: string;
  dailyCredits: string;
  monthlyCredits: string;
  perRequestInputCredits: string;
  messagesMode: ProtocolModeSetting;
  responsesMode: ProtocolModeSetting;
  priceMultiplier: string;
  /** In order; `from` is the profile (blank: this one), `to` the model (blank: the one the client named). */
  fallbacks: PairRow[];
}

const DEFAULTS = profileSchema.parse({ id: 'new', name: 'new', baseUrl: 'x' });

const text = (value: number | undefined): string => (value === undefined ? '' : String(value));

export function formFromProfile(profile: Profile | null): ProfileForm {
  const source = profile ?? { ...DEFAULTS, id: '', name: '', baseUrl: '' };
  return {
    id: source.id,
    name: source.name,
    baseUrl: source.baseUrl,
    aliases: Object.entries(source.modelAliases).map(([from, to]) => ({ from, to })),
    routes: source.modelRoutes.map((route) => ({ from: route.pattern, to: route.target })),
    connectTimeoutMs: text(source.timeouts.connectTimeoutMs),
    idleTimeoutMs: text(source.timeouts.idleTimeoutMs),
    totalTimeoutMs: text(source.timeouts.totalTimeoutMs),
    maxRetries: text(source.retry.maxRetries),
    maxRetryAfterMs: text(source.retry.maxRetryAfterMs),
    maxRequestBodyMiB: text(source.maxRequestBodyMiB),
    dailyCredits: text(source.budget.dailyCredits),
    monthlyCredits: text(source.budget.monthlyCredits),
    perRequestInputCredits: text(source.budget.perRequestInputCredits),
    messagesMode: source.protocolModes.messages,
    responsesMode: source.protocolModes.responses,
    priceMultiplier: text(source.priceMultiplier),
    fallbacks: source.fallbacks.map((entry) => ({ from: entry.profileId ?? '', to: entry.model ?? '' })),
  };
}

export type FormResult = { ok: true; profile: Profile } | { ok: false; errors: Record<string, string> };

/**
 * Validates the form with the same schema the proxy applies to the profile file, keeping the
 * parts this form does not edit (prices) from `existing`. Errors are keyed by dotted field path.
 */
export function profileFromForm(form: ProfileForm, existing: Profile | null): FormResult {
  // Blank means "not set"; text with no digit is NaN, which the schema refuses with its field named. A decimal comma
  // or a currency sign is said here: the field keeps the text as typed (a number input dropped the comma: 1,5 was 15).
  const typedProblems: Record<string, string> = {};
  const optionalNumber = (value: string, path: string): number | undefined => {
    const typed = typedNumber(value);
    if (typeof typed !== 'object') return typed;
    typedProblems[path] = typed.problem;
    return undefined;
  };
  const candidate = {
    id: form.id.trim(),
    name: form.name.trim(),
    baseUrl: form.baseUrl.trim(),
    modelAliases: Object.fromEntries(form.aliases.filter((row) => row.from.trim() !== '').map((row) => [row.from.trim(), row.to.trim()])),
    modelRoutes: form.routes.filter((row) => row.from.trim() !== '').map((row) => ({ pattern: row.from.trim(), target: row.to.trim() })),
    protocolModes: { messages: form.messagesMode, responses: form.responsesMode },
    timeouts: {
      connectTimeoutMs: optionalNumber(form.connectTimeoutMs, 'timeouts.connectTimeoutMs'),
      idleTimeoutMs: optionalNumber(form.idleTimeoutMs, 'timeouts.idleTimeoutMs'),
      totalTimeoutMs: optionalNumber(form.totalTimeoutMs, 'timeouts.totalTimeoutMs'),
    },
    retry: {
      maxRetries: optionalNumber(form.maxRetries, 'retry.maxRetries'),
      maxRetryAfterMs: optionalNumber(form.maxRetryAfterMs, 'retry.maxRetryAfterMs'),
    },
    maxRequestBodyMiB: optionalNumber(form.maxRequestBodyMiB, 'maxRequestBodyMiB'),
    budget: {
      dailyCredits: optionalNumber(form.dailyCredits, 'budget.dailyCredits'),
      monthlyCredits: optionalNumber(form.monthlyCredits, 'budget.monthlyCredits'),
      perRequestInputCredits: optionalNumber(form.perRequestInputCredits, 'budget.perRequestInputCredits'),
    },
    prices: existing?.prices ?? [],
    priceMultiplier: optionalNumber(form.priceMultiplier, 'priceMultiplier'),
    fallbacks: form.fallbacks
      .map((row) => ({ profileId: row.from.trim(), model: row.to.trim() }))
      .filter((row) => row.profileId !== '' || row.model !== '')
      .map((row) => ({ ...(row.profileId === '' ? {} : { profileId: row.profileId }), ...(row.model === '' ? {} : { model: row.model }) })),
  };
  const parsed = profileSchema.safeParse(candidate);
  if (parsed.success && Object.keys(typedProblems).length === 0) return { ok: true, profile: parsed.data };
  const errors: Record<string, string> = { ...typedProblems };
  for (const issue of parsed.error?.issues ?? []) {
    const path = issue.path.join('.');
    errors[path] ??= issue.message;
  }
  return { ok: false, errors };
}

export type SaveBodyResult = { ok: true; body: ProfileUpdateRequest } | { ok: false; errors: Record<string, string> };

/** The profile's settings this form edits (prices and the key pool have editors of their own). */
const FORM_FIELDS = [
  'name',
  'baseUrl',
  'modelAliases',
  'modelRoutes',
  'protocolModes',
  'timeouts',
  'retry',
  'maxRequestBodyMiB',
  'budget',
  'priceMultiplier',
  'fallbacks',
] as const satisfies readonly (keyof Profile)[];

/**
 * What saving the form of an existing profile sends (PUT /profiles/:id changes the fields it is
 * sent): only the settings that differ from `base`, the profile the form was filled from. Sending
 * the whole profile wrote back, without a word, what had been saved meanwhile by the price editor,
 * the CLI or an edit of airlock.json. Each is sent with its value in `base`, so one changed
 * elsewhere meanwhile too (a fallback the CLI added) is refused rather than overwritten.
 */
export function profileSaveBody(form: ProfileForm, base: Profile): SaveBodyResult {
  const result = profileFromForm(form, base);
  if (!result.ok) return result;
  const edited = result.profile;
  const changed = FORM_FIELDS.filter((field) => JSON.stringify(edited[field]) !== JSON.stringify(base[field]));
  if (changed.length === 0) return { ok: true, body: {} };
  return {
    ok: true,
    body: {
      ...Object.fromEntries(changed.map((field) => [field, edited[field]])),
      expected: Object.fromEntries(changed.map((field) => [field, base[field]])),
    },
  };
}
