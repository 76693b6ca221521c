import { showInvisible } from '../../proxy/contracts/displayText.ts';
import type { Notice, NoticeKind } from '../../proxy/contracts/notices.ts';

const TITLE_BY_KIND: Record<NoticeKind, string> = {
  data_dir_not_private: "Airlock's data can be read by other users",
  config_file: "Airlock's settings file is missing",
  keychain_unavailable: 'Airlock cannot read the gateway keys',
  environment_key: 'Airlock runs on the key from AIRLOCK_API_KEY',
  log_recovered: 'Airlock set a damaged request log aside',
  config_newer: "Airlock does not use a newer version's settings",
  log_start: "Airlock counted an earlier run's spend",
  log_newer: 'A newer Airlock wrote the request log: this one logs apart',
  capabilities_file: 'Airlock set capabilities.json aside',
  reasoning_efforts_file: 'Airlock set reasoning-effort-refusals.json aside',
  max_tokens_file: 'Airlock set max-tokens-refusals.json aside',
  capabilities_not_saved: 'Airlock could not save capability results',
  reasoning_efforts_not_saved: 'Airlock could not save a reasoning_effort refusal',
  max_tokens_not_saved: 'Airlock could not save a max_tokens refusal',
  request_log_failed: 'The request log failed',
  request_log_stopped: 'The request log stopped: requests are not logged',
  idempotency_store_failed: 'Airlock could not keep idempotency keys',
  trace_export_failed: 'Trace export failed',
  token_estimates_failed: "Airlock's token estimates failed",
  translation_failed: "Airlock's translation thread failed",
  os_certificates_unreadable: "Airlock could not read this computer's certificate store",
  upstream_proxy: 'Airlock cannot use the proxy the environment names',
  tools_through_proxy: "Your tools may send Airlock's requests to a proxy",
  localhost_taken: "Another program answers localhost at Airlock's port",
  listener_failing: 'Airlock stopped taking new connections',
  unexpected_error: 'Airlock failed unexpectedly',
};

export interface NoticeNotification {
  title: string;
  body: string;
}

export interface NoticeNotificationDecision {
  notifications: NoticeNotification[];
  /** Pass back in on the next change. */
  seenIds: ReadonlySet<string>;
}

/**
 * Which of the proxy's notices (start notices, problems while running) become an OS notification:
 * a new one (an id not seen before: one dismissed and happening again has a new id) while the window
 * is closed. The open window shows them itself; one seen there, or while notifications were off,
 * does not notify later.
 */
export function decideNoticeNotifications(
  seenIds: ReadonlySet<string>,
  notices: readonly Notice[],
  view: { windowShown: boolean; notificationsEnabled: boolean },
): NoticeNotificationDecision {
  const notify = !view.windowShown && view.notificationsEnabled;
  return {
    notifications: notify
      ? notices
          .filter((notice) => !seenIds.has(notice.id))
          // Causes name files, models and messages others chose: an override (U+202E) is written out.
          .map((notice) => ({ title: TITLE_BY_KIND[notice.kind], body: showInvisible(`${notice.cause} ${notice.fix}`) }))
      : [],
    seenIds: new Set(notices.map((notice) => notice.id)),
  };
}
