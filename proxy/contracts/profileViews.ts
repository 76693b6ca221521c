import type { ErrorClass } from './errors.ts';
import type { PoolKeyStatus } from './keyPool.ts';
import type { ModelPrice, Profile, ProfileInput } from './profile.ts';

/**
 * The control API's profiles (GET/POST/PUT /profiles…): a profile as the window sees it (its key
 * only as set or not and its last four), switching, the base URL preview, the test and the prices.
 */

export interface KeyStatus {
  set: boolean;
  lastFour: string | null;
  /** The key is AIRLOCK_API_KEY's, for this run only (it wins over the keychain's). */
  fromEnvironment?: true;
  /** No key is held because the keychain did not give it (not answering, locked, refused): one may well be stored. */
  unread?: true;
}

export interface ProfileView {
  profile: Profile;
  active: boolean;
  key: KeyStatus;
  /** A pooled profile's keys, each with how it stands now (never the key). */
  keyPool?: PoolKeyStatus[];
}

/** GET /profiles */
export interface ProfileListResponse {
  profiles: ProfileView[];
  activeProfileId: string | null;
  keychain: { available: boolean; message: string | null };
}

/** POST /profiles */
export type ProfileWriteRequest = ProfileInput;

/** The profile's settings PUT /profiles/:id can change. */
type ProfileSettings = Omit<ProfileInput, 'id' | 'keyPool'>;

/**
 * PUT /profiles/:id: only the fields sent change (a pool's keys have routes of their own).
 * `expected`: a field's value as the form was filled; one changed elsewhere since is refused (409)
 * rather than overwritten, as a setting is often a group (fallbacks, budget, timeouts).
 */
export type ProfileUpdateRequest = Partial<ProfileSettings> & { expected?: Partial<ProfileSettings> };

/** POST /profiles/:id/activate */
export interface ActivateResponse {
  activeProfileId: string;
}

/** GET /profiles/:id/switch-check — asked before a switch, so the user hears what it would break. */
export interface SwitchCheckResponse {
  profileId: string;
  /** Requests running now: they finish where they are, but the agents' next requests go to the new profile. */
  inFlight: number;
  /** Models clients asked for in the last day, newest first. */
  recentModels: string[];
  /** Of those, the ones the profile would send as an id its gateway does not list (after its aliases and routes). */
  missingModels: { requested: string; upstream: string }[];
  /** false when the profile's model list could not be had: missingModels is then empty, not a promise. */
  modelListKnown: boolean;
}

/** GET /base-url?value= — what a typed base URL normalises to, for the live preview. */
export interface BaseUrlPreview {
  normalized: string | null;
  /** Why the value cannot be used, or notes such as "removed a trailing /chat/completions". */
  error: string | null;
  notes: string[];
}

/** POST /profiles/:id/test */
export interface ProfileTestRequest {
  /** Model for the one-token chat; without it only GET /models runs. */
  model?: string;
}
export interface ProfileTestStep {
  name: 'models' | 'chat';
  ok: boolean;
  status: number | null;
  errorClass: ErrorClass | null;
  durationMs: number;
  /** What this result proves or means (docs/gateway-spec.md §4, §7). */
  meaning: string;
  fix: string | null;
}
export interface ProfileTestResult {
  steps: ProfileTestStep[];
  /** Model ids GET /models returned (for choosing the chat model). */
  models: string[];
}

/** GET/PUT /profiles/:id/prices */
export interface PriceTable {
  prices: ModelPrice[];
  priceMultiplier: number;
}
export type PriceFormat = 'json' | 'csv';
