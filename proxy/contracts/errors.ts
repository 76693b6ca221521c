/**
 * Every failure a client can meet has exactly one class. Upstream classes follow the gateway
 * contract (docs/gateway-spec.md §7); local classes are refusals Airlock makes before anything is sent.
 */
export const UPSTREAM_ERROR_CLASSES = [
  'bad_request',
  'auth',
  'model_not_found',
  'rate_limited',
  'quota_exhausted',
  'upstream_error',
  'timeout_connect',
  'timeout_idle',
  'timeout_total',
  'html_instead_of_json',
  'stream_interrupted',
  'network',
] as const;

export const LOCAL_ERROR_CLASSES = [
  'client_unauthorized',
  'forbidden',
  'no_key',
  'invalid_request',
  'request_too_large',
  'budget_exceeded',
  'unpriced_model',
  'client_paused',
  'circuit_open',
  'keys_cooling',
  'proxy_paused',
  'client_aborted',
  'upload_stalled',
  'translation_unavailable',
  'proxy_stopping',
  'ledger_incomplete',
  'log_unreadable',
] as const;

export type UpstreamErrorClass = (typeof UPSTREAM_ERROR_CLASSES)[number];
export type LocalErrorClass = (typeof LOCAL_ERROR_CLASSES)[number];
export type ErrorClass = UpstreamErrorClass | LocalErrorClass;

/** The OpenAI error shape every client understands. */
export interface OpenAiErrorBody {
  error: { message: string; type: ErrorClass; code: string; param?: string | null; request_id?: string };
}

/** An error class explained for people, as the request detail and the model list show it. */
export interface ErrorExplanation {
  errorClass: ErrorClass;
  /** Title for the class, e.g. "Key rejected". */
  title: string;
  meaning: string;
  fix: string;
  /** Whether Airlock (and a client) may retry this automatically, per docs/gateway-spec.md §7. */
  retryable: boolean;
}
