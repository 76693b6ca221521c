import type { GatewayKeyUse, PoolKeyStatus } from './keyPool.ts';
import type { BurstLimits, MemoryLimits } from './config.ts';
import type { ErrorClass } from './errors.ts';
import type { ModelPrice, Profile, ProfileInput } from './profile.ts';
import type { FallbackHop, RequestState } from './log.ts';
import type { ClientProtocol, ProtocolMode } from './usage.ts';

/**
 * The control API between the window (renderer/) and the proxy: every request and response body
 * and every live event, as plain JSON. Shared by proxy/control (which serves it) and
 * renderer/src/api/client.ts (the only code in the window that calls it). No Node types here.
 */

export const CONTROL_PREFIX = '/_airlock';
export const CONTROL_API_PREFIX = `${CONTROL_PREFIX}/api`;
/** Page that receives `#code=<one-time code>` from the URL `airlock serve` prints. */
export const CONTROL_LOGIN_PATH = `${CONTROL_PREFIX}/login`;
export const CONTROL_SESSION_COOKIE = 'airlock_session';
/** Live events are merged server-side and sent at most once per this interval. */
export const LIVE_FRAME_INTERVAL_MS = 100;

/** Every error from the control API has this shape (and a 4xx/5xx status). */
export interface ApiErrorBody {
  error: { code: ApiErrorCode; message: string; field?: string };
}
export type ApiErrorCode = 'unauthorized' | 'not_found' | 'invalid' | 'conflict' | 'keychain_unavailable' | 'unavailable' | 'internal';

// ---- session -------------------------------------------------------------------------------

/** POST /session: a one-time login code, or the control token itself typed by the user. */
export type SessionRequest = { code: string } | { controlToken: string };

// ---- money and status ----------------------------------------------------------------------

export interface MoneyAmount {
  credits: number;
  cny: number;
  /** Card reference rate only; checkout amounts differ. */
  usdApprox: number;
}

export type AlarmKind =
  | 'budget_reached'
  | 'budget_warning'
  | 'key_rejected'
  | 'quota_exhausted'
  | 'log_degraded'
  | 'log_recovered'
  | 'ledger_incomplete'
  | 'client_paused'
  | 'auth_disabled'
  | 'keychain_unavailable';

export interface Alarm {
  kind: AlarmKind;
  /** What happened and what to do, for people. */
  message: string;
  profileId?: string;
  clientName?: string;
}

export interface FirstRunSteps {
  hasProfile: boolean;
  hasKey: boolean;
  hasClientToken: boolean;
}

/** GET /status */
export interface StatusResponse {
  /** e.g. http://127.0.0.1:8642 */
  proxyUrl: string;
  paused: boolean;
  inFlight: number;
  activeProfile: { id: string; name: string; key: KeyStatus } | null;
  todaySpend: MoneyAmount;
  alarms: Alarm[];
  firstRun: FirstRunSteps;
}

/** POST /pause, POST /resume */
export interface PauseResponse {
  paused: boolean;
}

// ---- requests ------------------------------------------------------------------------------

/** `ok` = 2xx/3xx, `error` = anything else; a number = that exact status. */
export type StatusFilter = 'ok' | 'error' | number;

export interface RequestFilters {
  fromMs?: number;
  toMs?: number;
  profileId?: string;
  /** One model id, or `prefix*` for every id starting with prefix. */
  model?: string;
  client?: string;
  /** The path the client called, exactly. */
  path?: string;
  status?: StatusFilter;
  errorClass?: ErrorClass;
  /** Full text over bodies, paths and models. */
  text?: string;
}

/** GET /requests?…filters&cursor&limit — newest first, keyset paged. */
export interface RequestListQuery extends RequestFilters {
  cursor?: string;
  limit?: number;
}

/** One row of the Live list. */
export interface RequestSummary {
  id: string;
  startedAtMs: number;
  state: RequestState;
  clientName: string | null;
  profileId: string | null;
  method: string;
  clientPath: string;
  requestedModel: string | null;
  responseModel: string | null;
  stream: boolean;
  status: number | null;
  errorClass: ErrorClass | null;
  ttfbMs: number | null;
  durationMs: number | null;
  inputTokens: number | null;
  outputTokens: number | null;
  /** null = unpriced (never shown as 0). */
  costCredits: number | null;
  usageEstimated: boolean;
  /** The agent's session (Claude Code's or Codex's session header, else the conversation Airlock recognised); null when neither. */
  agentSessionId: string | null;
  /** The first line of the prompt (or of the answer), masked; set once the log has the request. */
  summary: string | null;
  /** The steps it took when it fell back to another model or profile (the last answered); absent when it did not. */
  fallbackChain?: FallbackHop[];
  /** The request this one replayed; null for a client's own request. */
  replayOf: string | null;
}

export interface RequestPage {
  items: RequestSummary[];
  /** Pass back as `cursor` for the next (older) page; null at the end. */
  nextCursor: string | null;
}

export interface ErrorExplanation {
  errorClass: ErrorClass;
  /** Title for the class, e.g. "Key rejected". */
  title: string;
  meaning: string;
  fix: string;
  /** Whether Airlock (and a client) may retry this automatically, per docs/gateway-spec.md §7. */
  retryable: boolean;
}

/** A request or response body; large ones are fetched separately (GET /requests/:id/body/:part). */
export interface BodyView {
  sizeBytes: number;
  truncated: boolean;
  contentType: string | null;
  /** Present when the body is small enough to send with the detail; already masked. */
  text: string | null;
}

export type BodyPart = 'request' | 'response' | 'stream-events';

/** GET /requests/:id — everything about one request, masked. */
export interface RequestDetail extends RequestSummary {
  upstreamPath: string;
  upstreamRequestId: string | null;
  /** A pooled profile's key for each attempt, in order (id and label); absent for a profile with one key. */
  gatewayKeys?: GatewayKeyUse[];
  protocol: ClientProtocol;
  protocolMode: ProtocolMode;
  retries: number;
  /** The response named another model than the gateway was asked for (the gateway may rewrite it). */
  modelMismatch: boolean;
  upstreamModel: string | null;
  errorMessage: string | null;
  explanation: ErrorExplanation | null;
  cachedInputTokens: number | null;
  reasoningTokens: number | null;
  requestHeaders: Record<string, string>;
  responseHeaders: Record<string, string>;
  requestBody: BodyView | null;
  responseBody: BodyView | null;
  /** What Airlock changed on the way, and what the log did not keep of the request and why. */
  notes: string[];
  /** For streams: the assembled text, and the raw SSE events as received. */
  streamText: string | null;
  streamEvents: BodyView | null;
  /** Each stream event's arrival, ms since the request started, in the order of the events; null when not recorded. */
  streamEventOffsetsMs: number[] | null;
  /** This request's replays, oldest first. */
  replayIds: string[];
}

/** GET /requests/:id/body/:part */
export interface BodyTextResponse {
  text: string;
  truncated: boolean;
}

// ---- spend ---------------------------------------------------------------------------------

export type SpendRange = 'today' | '7d' | '30d';

export interface SpendRow {
  key: string;
  requests: number;
  inputTokens: number;
  outputTokens: number;
  costCredits: number;
  /** Requests with no price: counted, never costed as 0. */
  unpricedRequests: number;
}

export interface SpendDay {
  /** Local date, YYYY-MM-DD. */
  day: string;
  /** Credits per model id. */
  creditsByModel: Record<string, number>;
}

/** The shares of a cap at which the window and the tray alert, not only when it is reached. */
export const BUDGET_ALERT_PERCENTS = [50, 80, 100] as const;
export type BudgetAlertPercent = (typeof BUDGET_ALERT_PERCENTS)[number];

export interface BudgetProgress {
  scope: 'profile' | 'client';
  /** Profile id or client token name. */
  subject: string;
  period: 'daily' | 'monthly';
  capCredits: number;
  spentCredits: number;
  reached: boolean;
  /** The highest alert share the spend has passed this period; null below the first. */
  alertPercent: BudgetAlertPercent | null;
}

export interface TopUpTier {
  minCredits: number;
  discountPercent: number;
}

/** GET /spend?range= */
export interface SpendResponse {
  range: SpendRange;
  totals: { today: MoneyAmount; last7Days: MoneyAmount; last30Days: MoneyAmount };
  perDay: SpendDay[];
  /** Range 'today' only (else empty): each hour of today so far, `day` being "HH:00". */
  perHour: SpendDay[];
  perModel: SpendRow[];
  perClient: SpendRow[];
  perProfile: SpendRow[];
  /** By the agent's session id; requests whose client sent none are one row, keyed NO_SESSION_KEY. */
  perSession: SpendRow[];
  budgets: BudgetProgress[];
  rates: { cnyPerCredit: number; usdPerCreditApprox: number; topUpTiers: TopUpTier[] };
}

// ---- profiles ------------------------------------------------------------------------------

export interface KeyStatus {
  set: boolean;
  lastFour: string | null;
  /** The key is AIRLOCK_API_KEY's, for this run only (it wins over the keychain's). */
  fromEnvironment?: true;
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

/** POST /profiles, PUT /profiles/:id */
export type ProfileWriteRequest = ProfileInput;

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

// ---- models --------------------------------------------------------------------------------

export type Capability = 'chat' | 'stream' | 'tools' | 'image_input' | 'messages_native' | 'responses_native';
export interface CapabilityBadge {
  capability: Capability;
  supported: boolean | null;
  checkedAtMs: number | null;
}

export interface ModelStats {
  requests: number;
  errorRate: number;
  p50LatencyMs: number | null;
  p95LatencyMs: number | null;
  p50TtfbMs: number | null;
}

export interface ModelRow {
  id: string;
  price: ModelPrice | null;
  stats: ModelStats | null;
  capabilities: CapabilityBadge[];
}

/** GET /models?refresh=1 */
export interface ModelListResponse {
  profileId: string | null;
  fetchedAtMs: number | null;
  models: ModelRow[];
  /** Why the list could not be fetched, explained; the cached list (if any) is still returned. */
  error: ErrorExplanation | null;
}

/** POST /models/:id/capabilities — runs the on-demand capability check for the active profile. */
export interface CapabilityCheckResponse {
  model: string;
  capabilities: CapabilityBadge[];
}

// ---- client tokens -------------------------------------------------------------------------

export interface TokenView {
  name: string;
  /** null = follows the active profile. */
  pinnedProfileId: string | null;
  createdAtMs: number | null;
  paused: boolean;
  /** The keychain holds it, so the window can show it again; false = it was shown once, at creation. */
  revealable: boolean;
}

/** GET /tokens */
export interface TokenListResponse {
  tokens: TokenView[];
  /** false when the user turned the token requirement off (the UI warns). */
  required: boolean;
}

/** POST /tokens */
export interface TokenCreateRequest {
  name: string;
  pinnedProfileId?: string | null;
}
/** The token is in this response and in GET /tokens/:name/reveal, nowhere else. */
export interface TokenSecretResponse {
  name: string;
  token: string;
  pinnedProfileId: string | null;
}

/** POST /clients/:name/resume — lifts a burst-guard pause. */
export interface ClientResumeResponse {
  resumed: boolean;
}

export type { FacetValue, RequestFacets } from './requestFacets.ts';

// ---- live events: see liveEvents.ts -------------------------------------------------------

export { LIVE_EVENT_NAME, type LiveFrame, type LiveRequestUpdate } from './liveEvents.ts';

// Re-exported so the window's forms use the same shapes as the profile file.
export type { BurstLimits, MemoryLimits, ModelPrice, Profile, ProfileInput, RequestState };
