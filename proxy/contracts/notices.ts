/** What Airlock found at start or while running that the user should know, as the window and the tray get it. */

export type NoticeKind =
  | 'data_dir_not_private'
  | 'config_file'
  | 'config_newer'
  | 'keychain_unavailable'
  | 'environment_key'
  | 'log_recovered'
  | 'log_start'
  | 'log_newer'
  | 'capabilities_file'
  | 'reasoning_efforts_file'
  | 'max_tokens_file'
  | 'capabilities_not_saved'
  | 'reasoning_efforts_not_saved'
  | 'max_tokens_not_saved'
  | 'request_log_failed'
  | 'request_log_stopped'
  | 'idempotency_store_failed'
  | 'trace_export_failed'
  | 'token_estimates_failed'
  | 'translation_failed'
  | 'os_certificates_unreadable'
  | 'upstream_proxy'
  | 'tools_through_proxy'
  | 'localhost_taken'
  | 'listener_failing'
  | 'unexpected_error';

export interface Notice {
  /** New each time the problem happens again (a dismissed one comes back under a new id). */
  id: string;
  kind: NoticeKind;
  /** When it last happened. */
  atMs: number;
  /** What happened, in words, masked. */
  cause: string;
  /** What the user can do about it. */
  fix: string;
}

/** POST /notices/:id/dismiss */
export interface NoticeDismissResponse {
  notices: Notice[];
}
