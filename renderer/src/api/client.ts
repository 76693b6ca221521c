import type { ReplayRequest, ReplayResponse } from '../../../proxy/contracts/replay.ts';
import { CONTROL_API_PREFIX, type ApiErrorBody, type ApiErrorCode, type SessionRequest } from '../../../proxy/contracts/controlApi.ts';
import { LIVE_EVENT_NAME, type LiveFrame } from '../../../proxy/contracts/liveEvents.ts';
import type {
  ActivateResponse,
  BaseUrlPreview,
  KeyStatus,
  PriceFormat,
  PriceTable,
  ProfileListResponse,
  ProfileTestRequest,
  ProfileTestResult,
  ProfileView,
  ProfileUpdateRequest,
  ProfileWriteRequest,
  SwitchCheckResponse,
} from '../../../proxy/contracts/profileViews.ts';
import type {
  BodyPart,
  BodyTextResponse,
  RequestDetail,
  RequestFilters,
  RequestListQuery,
  RequestPage,
} from '../../../proxy/contracts/requests.ts';
import type { BurstLimits, MemoryLimits } from '../../../proxy/contracts/config.ts';
import type { CapabilityCheckResponse, ModelListResponse } from '../../../proxy/contracts/models.ts';
import type {
  ClientResumeResponse,
  TokenCreateRequest,
  TokenListResponse,
  TokenSecretResponse,
} from '../../../proxy/contracts/clientTokens.ts';
import type { PauseResponse, StatusResponse } from '../../../proxy/contracts/status.ts';
import type { NoticeDismissResponse } from '../../../proxy/contracts/notices.ts';
import type { RequestFacets } from '../../../proxy/contracts/requestFacets.ts';
import type { SpendRange, SpendResponse } from '../../../proxy/contracts/spend.ts';
import type { AgentSessionPage, AgentSessionTimeline } from '../../../proxy/contracts/agentSessions.ts';
import type {
  ConnectApplyResponse,
  ConnectListResponse,
  ConnectPlanResponse,
  ConnectRequest,
  ConnectToolId,
  ConnectUndoResponse,
  ConnectForgetBackupsResponse,
} from '../../../proxy/contracts/connect.ts';
import type { RequestExportFormat, TraceExportHeaderWrite, TraceExportView } from '../../../proxy/contracts/export.ts';
import { requestQueryString } from './query.ts';
import { readSse } from './sse.ts';

/** A control API failure, with the server's code and message (status 0 = the proxy is unreachable). */
export class ControlApiError extends Error {
  readonly status: number;
  readonly code: ApiErrorCode | 'network';
  readonly field: string | undefined;

  constructor(status: number, code: ApiErrorCode | 'network', message: string, field?: string) {
    super(message);
    this.name = 'ControlApiError';
    this.status = status;
    this.code = code;
    this.field = field;
  }
}

export interface LiveSubscription {
  onFrame(frame: LiveFrame): void;
  onConnectionChange?(connected: boolean): void;
  /** The proxy refused the window's session (it expired, or the proxy forgot it): the channel stops retrying. */
  onSignedOut?(): void;
}

export interface ControlClientOptions {
  /** Defaults to the same origin's /_airlock/api. */
  apiBase?: string;
  /** Electron's preload hands this over; the browser uses the HttpOnly session cookie instead. */
  controlToken?: string | null;
  fetchImpl?: typeof fetch;
  /** Wait before reconnecting the live channel after it drops. */
  reconnectDelayMs?: number;
}

/** A download: the file as the proxy named it (Content-Disposition) and its bytes. */
export interface ExportFile {
  fileName: string;
  blob: Blob;
}

/** Every call the window makes to the proxy. Components get it from ApiContext, tests fake it. */
export interface ControlClient {
  createSession(request: SessionRequest): Promise<void>;
  status(): Promise<StatusResponse>;
  setPaused(paused: boolean): Promise<PauseResponse>;
  /** Hides one of the status's notices until it happens again. */
  dismissNotice(id: string): Promise<NoticeDismissResponse>;
  listRequests(query: RequestListQuery): Promise<RequestPage>;
  /** The values the matching requests hold, with counts, for the filter menus. */
  requestFacets(filters: RequestFilters): Promise<RequestFacets>;
  request(id: string): Promise<RequestDetail>;
  /** Sends a logged request again through the proxy (optionally edited) and answers both sides once it ended. */
  replay(id: string, request: ReplayRequest): Promise<ReplayResponse>;
  requestBody(id: string, part: BodyPart): Promise<BodyTextResponse>;
  spend(range: SpendRange): Promise<SpendResponse>;
  profiles(): Promise<ProfileListResponse>;
  createProfile(profile: ProfileWriteRequest): Promise<ProfileView>;
  updateProfile(id: string, changes: ProfileUpdateRequest): Promise<ProfileView>;
  deleteProfile(id: string): Promise<void>;
  setKey(id: string, key: string): Promise<KeyStatus>;
  deleteKey(id: string): Promise<KeyStatus>;
  /** Adds a key to the profile's pool (its single key becomes the pool's first); the key is never sent back. */
  addPoolKey(id: string, request: { key: string; label?: string }): Promise<ProfileView>;
  relabelPoolKey(id: string, keyId: string, label: string): Promise<ProfileView>;
  replacePoolKey(id: string, keyId: string, key: string): Promise<ProfileView>;
  removePoolKey(id: string, keyId: string): Promise<ProfileView>;
  activateProfile(id: string): Promise<ActivateResponse>;
  /** What switching to the profile now would break (requests in flight, models its gateway lacks). */
  switchCheck(id: string): Promise<SwitchCheckResponse>;
  testProfile(id: string, request: ProfileTestRequest): Promise<ProfileTestResult>;
  previewBaseUrl(value: string): Promise<BaseUrlPreview>;
  prices(id: string): Promise<PriceTable>;
  /** Saves what is given (the table, the multiplier or both); the answer is the whole table as saved. */
  savePrices(id: string, changes: Partial<PriceTable>): Promise<PriceTable>;
  importPrices(id: string, format: PriceFormat, text: string): Promise<PriceTable>;
  exportPrices(id: string, format: PriceFormat): Promise<string>;
  models(refresh: boolean): Promise<ModelListResponse>;
  checkCapabilities(model: string): Promise<CapabilityCheckResponse>;
  tokens(): Promise<TokenListResponse>;
  createToken(request: TokenCreateRequest): Promise<TokenSecretResponse>;
  revealToken(name: string): Promise<TokenSecretResponse>;
  revokeToken(name: string): Promise<void>;
  resumeClient(name: string): Promise<ClientResumeResponse>;
  burstLimits(): Promise<BurstLimits>;
  /** Saves the limits given; the answer holds both, the other as saved by whoever saved it last. */
  saveBurstLimits(changes: Partial<BurstLimits>): Promise<BurstLimits>;
  connectTools(): Promise<ConnectListResponse>;
  planConnect(tool: ConnectToolId, request: ConnectRequest): Promise<ConnectPlanResponse>;
  applyConnect(tool: ConnectToolId, request: ConnectRequest): Promise<ConnectApplyResponse>;
  undoConnect(tool: ConnectToolId): Promise<ConnectUndoResponse>;
  forgetConnectBackups(tool: ConnectToolId): Promise<ConnectForgetBackupsResponse>;
  /** The request log with the list's filters as HAR or CSV. */
  exportRequests(format: RequestExportFormat, filters: RequestFilters): Promise<ExportFile>;
  exportSpend(range: SpendRange): Promise<ExportFile>;
  traceExport(): Promise<TraceExportView>;
  saveTraceExport(settings: { otlpEndpoint: string | null }): Promise<TraceExportView>;
  /** The value goes to the keychain; the answer names the headers, never a value. */
  setTraceExportHeader(header: TraceExportHeaderWrite): Promise<TraceExportView>;
  removeTraceExportHeader(name: string): Promise<TraceExportView>;
  memoryLimits(): Promise<MemoryLimits>;
  /** Saves the limits given; the answer holds both, the other as saved by whoever saved it last. */
  saveMemoryLimits(changes: Partial<MemoryLimits>): Promise<MemoryLimits>;
  /** Agents' sessions, newest activity first; `cursor` from the previous page. */
  agentSessions(cursor: string | null): Promise<AgentSessionPage>;
  /** A session's turns, oldest first, a page at a time; `cursor` from the previous page. */
  agentSession(id: string, cursor: string | null): Promise<AgentSessionTimeline>;
  /** Opens the live channel and keeps it open (reconnecting) until the returned function is called. */
  subscribeLive(subscription: LiveSubscription): () => void;
}

const segment = encodeURIComponent;

export function createControlClient(options: ControlClientOptions = {}): ControlClient {
  const apiBase = options.apiBase ?? CONTROL_API_PREFIX;
  const fetchImpl = options.fetchImpl ?? ((input, init) => fetch(input, init));
  const reconnectDelayMs = options.reconnectDelayMs ?? 2_000;

  function headers(extra: Record<string, string> = {}): Record<string, string> {
    const all: Record<string, string> = { Accept: 'application/json', ...extra };
    if (options.controlToken) all.Authorization = `Bearer ${options.controlToken}`;
    return all;
  }

  async function send(method: string, path: string, body?: unknown): Promise<Response> {
    let response: Response;
    try {
      response = await fetchImpl(`${apiBase}${path}`, {
        method,
        credentials: 'same-origin',
        headers: headers(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch {
      throw new ControlApiError(0, 'network', 'Airlock is not reachable. Is the proxy still running?');
    }
    if (!response.ok) throw await errorFrom(response);
    return response;
  }

  async function json<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await send(method, path, body);
    return (await response.json()) as T;
  }

  async function empty(method: string, path: string): Promise<void> {
    await send(method, path);
  }

  async function file(path: string, fallbackName: string): Promise<ExportFile> {
    const response = await send('GET', path);
    const named = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '');
    return { fileName: named?.[1] ?? fallbackName, blob: await response.blob() };
  }

  function subscribeLive(subscription: LiveSubscription): () => void {
    const abort = new AbortController();
    let retryTimer: ReturnType<typeof setTimeout> | undefined;

    const connect = async (): Promise<void> => {
      try {
        const response = await fetchImpl(`${apiBase}/events`, {
          credentials: 'same-origin',
          headers: headers({ Accept: 'text/event-stream' }),
          signal: abort.signal,
        });
        if (!response.ok || !response.body) throw await errorFrom(response);
        subscription.onConnectionChange?.(true);
        await readSse(response.body, (message) => {
          if (message.event === LIVE_EVENT_NAME) subscription.onFrame(JSON.parse(message.data) as LiveFrame);
        });
      } catch (error) {
        // A dropped or unreachable channel is retried below; the status bar shows it as disconnected.
        // A refused session is not: no retry brings it back, only signing in again.
        if (error instanceof ControlApiError && error.status === 401 && !abort.signal.aborted) {
          subscription.onConnectionChange?.(false);
          subscription.onSignedOut?.();
          return;
        }
      }
      if (abort.signal.aborted) return;
      subscription.onConnectionChange?.(false);
      retryTimer = setTimeout(() => void connect(), reconnectDelayMs);
    };
    void connect();
    return () => {
      abort.abort();
      clearTimeout(retryTimer);
    };
  }

  return {
    createSession: async (request) => {
      await send('POST', '/session', request);
    },
    status: () => json('GET', '/status'),
    setPaused: (paused) => json('POST', paused ? '/pause' : '/resume'),
    dismissNotice: (id) => json('POST', `/notices/${segment(id)}/dismiss`),
    listRequests: (query) => json('GET', `/requests${requestQueryString(query)}`),
    requestFacets: (filters) => json('GET', `/requests/facets${requestQueryString(filters)}`),
    request: (id) => json('GET', `/requests/${segment(id)}`),
    replay: (id, request) => json('POST', `/requests/${segment(id)}/replay`, request),
    requestBody: (id, part) => json('GET', `/requests/${segment(id)}/body/${part}`),
    spend: (range) => json('GET', `/spend?range=${range}`),
    profiles: () => json('GET', '/profiles'),
    createProfile: (profile) => json('POST', '/profiles', profile),
    updateProfile: (id, changes) => json('PUT', `/profiles/${segment(id)}`, changes),
    deleteProfile: (id) => empty('DELETE', `/profiles/${segment(id)}`),
    setKey: (id, key) => json('PUT', `/profiles/${segment(id)}/key`, { key }),
    deleteKey: (id) => json('DELETE', `/profiles/${segment(id)}/key`),
    addPoolKey: (id, request) => json('POST', `/profiles/${segment(id)}/keys`, request),
    relabelPoolKey: (id, keyId, label) => json('PUT', `/profiles/${segment(id)}/keys/${segment(keyId)}`, { label }),
    replacePoolKey: (id, keyId, key) => json('PUT', `/profiles/${segment(id)}/keys/${segment(keyId)}/secret`, { key }),
    removePoolKey: (id, keyId) => json('DELETE', `/profiles/${segment(id)}/keys/${segment(keyId)}`),
    activateProfile: (id) => json('POST', `/profiles/${segment(id)}/activate`),
    switchCheck: (id) => json('GET', `/profiles/${segment(id)}/switch-check`),
    testProfile: (id, request) => json('POST', `/profiles/${segment(id)}/test`, request),
    previewBaseUrl: (value) => json('GET', `/base-url?value=${segment(value)}`),
    prices: (id) => json('GET', `/profiles/${segment(id)}/prices`),
    savePrices: (id, changes) => json('PUT', `/profiles/${segment(id)}/prices`, changes),
    importPrices: (id, format, text) => json('POST', `/profiles/${segment(id)}/prices/import`, { format, text }),
    exportPrices: async (id, format) => (await send('GET', `/profiles/${segment(id)}/prices/export?format=${format}`)).text(),
    models: (refresh) => json('GET', refresh ? '/models?refresh=1' : '/models'),
    checkCapabilities: (model) => json('POST', `/models/${segment(model)}/capabilities`),
    tokens: () => json('GET', '/tokens'),
    createToken: (request) => json('POST', '/tokens', request),
    revealToken: (name) => json('GET', `/tokens/${segment(name)}/reveal`),
    revokeToken: (name) => empty('DELETE', `/tokens/${segment(name)}`),
    resumeClient: (name) => json('POST', `/clients/${segment(name)}/resume`),
    burstLimits: () => json('GET', '/burst-limits'),
    saveBurstLimits: (changes) => json('PUT', '/burst-limits', changes),
    connectTools: () => json('GET', '/connect'),
    planConnect: (tool, request) => json('POST', `/connect/${tool}/plan`, request),
    applyConnect: (tool, request) => json('POST', `/connect/${tool}/apply`, request),
    undoConnect: (tool) => json('POST', `/connect/${tool}/undo`),
    forgetConnectBackups: (tool) => json('DELETE', `/connect/${tool}/backups`),
    exportRequests: (format, filters) => {
      const query = requestQueryString(filters);
      return file(`/export/requests${query === '' ? '?' : `${query}&`}format=${format}`, `airlock-requests.${format}`);
    },
    exportSpend: (range) => file(`/export/spend?format=csv&range=${range}`, 'airlock-spend.csv'),
    traceExport: () => json('GET', '/settings/trace-export'),
    saveTraceExport: (settings) => json('PUT', '/settings/trace-export', settings),
    setTraceExportHeader: (header) => json('PUT', '/settings/trace-export/headers', header),
    removeTraceExportHeader: (name) => json('DELETE', `/settings/trace-export/headers?name=${segment(name)}`),
    memoryLimits: () => json('GET', '/settings/memory'),
    saveMemoryLimits: (changes) => json('PUT', '/settings/memory', changes),
    agentSessions: (cursor) => json('GET', `/agent-sessions${cursor ? `?cursor=${segment(cursor)}` : ''}`),
    agentSession: (id, cursor) => json('GET', `/agent-sessions/${segment(id)}${cursor ? `?cursor=${segment(cursor)}` : ''}`),
    subscribeLive,
  };
}

async function errorFrom(response: Response): Promise<ControlApiError> {
  try {
    const body = (await response.json()) as ApiErrorBody;
    return new ControlApiError(response.status, body.error.code, body.error.message, body.error.field);
  } catch {
    return new ControlApiError(response.status, 'internal', `Airlock answered ${response.status} ${response.statusText}`.trim());
  }
}

/** The one-time code `airlock serve` puts in the URL fragment (`#code=…`), if any. */
export function loginCodeFromHash(hash: string): string | null {
  const params = new URLSearchParams(hash.startsWith('#') ? hash.slice(1) : hash);
  const code = params.get('code');
  return code && code.trim() !== '' ? code.trim() : null;
}
