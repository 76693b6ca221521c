import { CLI_COMMAND } from '../contracts/cli.ts';
import type { Notice, NoticeKind } from '../contracts/notices.ts';
import { redactKnownSecrets, redactSecrets } from '../core/redact.ts';
import { isDamageError, RESTART_FOR_DAMAGED_LOG } from '../store/logCheck.ts';
import { RequestLogStoppedError } from '../store/write/logThreadClient.ts';
import { ASIDE_NAME_SOURCE } from '../core/asideName.ts';

/** What the user can do, by kind: the causes come from many places, the fix is the kind's. */
const FIX_BY_KIND: Record<NoticeKind, string> = {
  data_dir_not_private: 'Run the chmod command it names (or make the data directory yours), then restart Airlock.',
  config_file: 'Create the file the link points to, or save any setting in Airlock and it is created there.',
  config_newer: 'Update Airlock to use them. Nothing is lost meanwhile: every change made here keeps them in the file.',
  keychain_unavailable: 'Unlock or start the OS keychain: Airlock reads the keys as soon as it answers.',
  environment_key: 'Nothing to do for this run; start Airlock without AIRLOCK_API_KEY to use the key kept in the keychain.',
  log_recovered: 'Nothing to do: a new request log is in use. Keep or delete the damaged one it names.',
  log_start: 'Nothing more than it says: where caps are refused for now, deleting the file it names accepts the loss.',
  log_newer:
    'Update Airlock to the version that wrote the log: it takes in the requests logged apart. Where caps are refused, staying on this one is also a way: move the log it names out of the data directory and restart Airlock (a fresh log starts, without the spend in that one).',
  capabilities_file: 'Nothing to do: models are checked again as needed. Keep or delete the file set aside.',
  reasoning_efforts_file: 'Nothing to do: refusals are learned again as needed. Keep or delete the file set aside.',
  max_tokens_file: 'Nothing to do: refusals are learned again as needed. Keep or delete the file set aside.',
  capabilities_not_saved: 'Free space on the disk that holds the data directory, or make the directory writable again.',
  reasoning_efforts_not_saved: 'Free space on the disk that holds the data directory, or make the directory writable again.',
  max_tokens_not_saved: 'Free space on the disk that holds the data directory, or make the directory writable again.',
  request_log_failed: 'If it keeps happening, free disk space for the data directory and restart Airlock.',
  request_log_stopped: 'Restart Airlock: no request is logged until then. If it stops again, free disk space for the data directory.',
  idempotency_store_failed: 'Free disk space for the data directory; if it keeps happening, restart Airlock.',
  trace_export_failed: 'Check the trace export endpoint and its headers under the export settings, and that the collector is running.',
  token_estimates_failed:
    'Nothing to do for one failure: byte counts, which count high, stood in. If it says they count bytes until a restart, restart Airlock.',
  translation_failed:
    'Nothing to do for one failure: that request was refused and nothing was sent. If it says large bodies are refused, restart Airlock.',
  os_certificates_unreadable:
    "Make this computer's certificate store readable (or install the gateway's certificate authority there again), then restart Airlock.",
  upstream_proxy:
    'Set the variable to an http:// or https:// proxy URL (or unset it), then restart Airlock: it reads HTTPS_PROXY, HTTP_PROXY, ALL_PROXY and NO_PROXY when it starts.',
  tools_through_proxy: `Add 127.0.0.1 to both NO_PROXY and no_proxy where you start your tools (a shell profile), then start them again: localhost is not enough, as the tools compare the address as written. Or run \`${CLI_COMMAND} connect <tool>\` in that shell: it writes the exception into Claude Code's, Codex's and Continue's own settings.`,
  localhost_taken: `Point your tools at 127.0.0.1 rather than localhost (\`${CLI_COMMAND} connect <tool>\` does), or stop the program it names and restart Airlock.`,
  listener_failing:
    'Nothing to do if it passes: Airlock listens again by itself. If it lasts, close programs holding many connections, or raise the open-files limit (`ulimit -n`) where Airlock starts.',
  unexpected_error: 'A fault in Airlock: try again, and if it keeps happening, report it with these words.',
};

/**
 * A log that stopped for good is its own notice: under one kind, a later minor failure (a WAL
 * checkpoint, the full-text backfill) replaced it, and the user no longer saw that nothing is logged.
 */
export function requestLogNoticeKind(error: unknown): NoticeKind {
  return error instanceof RequestLogStoppedError ? 'request_log_stopped' : 'request_log_failed';
}

/**
 * A request log failure in words. A damaged file says what restarting does, since its kind's fix
 * (free disk space) would not help: a start checks the log and sets a damaged one aside.
 */
export function requestLogFailureCause(error: unknown): string {
  const cause = `request log: ${error instanceof Error ? error.message : 'failed'}`;
  if (!isDamageError(error)) return cause;
  return `${cause}. The file is damaged; forwarding goes on. ${RESTART_FOR_DAMAGED_LOG} into a fresh log.`;
}

export interface NoticeBoardOptions {
  /** The gateway keys and tokens: masked in every cause, as everywhere the proxy shows text. */
  knownSecrets: () => string[];
  /** Airlock's data directory: it and the files Airlock moved aside in it are named readable (see readablePathsIn). */
  dataDir?: string;
  nowMs?: () => number;
}

/** Stand-ins no shape's run holds (private-use characters around an index), so masking leaves them whole. */
const PLACEHOLDER = /\uE000(\d+)\uE001/g;

/**
 * Masks a cause as everywhere (redactSecrets), except the data directory and the files Airlock moved
 * aside in it: their time stamp (digits and capitals) and the words and directories around it look
 * like a token, and the user must find the file the notice says to keep or delete. Only those exact
 * paths, which begin with the data directory, are spared the masking by shape; known secrets are
 * masked in them too.
 */
function maskCause(cause: string, knownSecrets: string[], readablePaths: RegExp | null): string {
  if (readablePaths === null) return redactSecrets(cause, knownSecrets);
  const kept: string[] = [];
  const guarded = cause.replace(readablePaths, (readablePath) => `\uE000${kept.push(readablePath) - 1}\uE001`);
  return redactSecrets(guarded, knownSecrets).replace(PLACEHOLDER, (placeholder, index: string) => {
    const readablePath = kept[Number(index)];
    return readablePath === undefined ? placeholder : redactKnownSecrets(readablePath, knownSecrets);
  });
}

/** The data directory, alone or followed by the name of a file Airlock moved aside in it; null for none (or the root). */
function readablePathsIn(dataDir: string | undefined): RegExp | null {
  // Paths in causes are joined to it (path.join), which drops a separator it ends with.
  const dir = dataDir?.replace(/[\\/]+$/, '') ?? '';
  if (dir === '') return null;
  const escapedDir = dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(String.raw`${escapedDir}(?:[\\/]${ASIDE_NAME_SOURCE})?`, 'g');
}

/**
 * The problems of this run the user should see, whoever shows them (the window's status, the
 * desktop notifications): one per kind (a newer one replaces it), so never more than there are
 * kinds however often a run fails, each masked. A dismissed one is gone until it is reported again;
 * one reported again unchanged while shown only moves its time, so a failure that repeats does not
 * notify again.
 */
export class NoticeBoard {
  readonly #options: NoticeBoardOptions;
  readonly #nowMs: () => number;
  readonly #readablePaths: RegExp | null;
  /** In the order reported, oldest first. */
  readonly #byKind = new Map<NoticeKind, Notice>();
  readonly #listeners = new Set<() => void>();
  #reported = 0;

  constructor(options: NoticeBoardOptions) {
    this.#options = options;
    this.#nowMs = options.nowMs ?? Date.now;
    this.#readablePaths = readablePathsIn(options.dataDir);
  }

  /** Keeps the problem as its kind's notice and returns it, masked (for stderr too). */
  report(kind: NoticeKind, cause: string): Notice {
    const maskedCause = maskCause(cause, this.#options.knownSecrets(), this.#readablePaths);
    const shown = this.#byKind.get(kind);
    this.#byKind.delete(kind);
    const notice: Notice =
      shown?.cause === maskedCause
        ? { ...shown, atMs: this.#nowMs() }
        : { id: `${kind}-${++this.#reported}`, kind, atMs: this.#nowMs(), cause: maskedCause, fix: FIX_BY_KIND[kind] };
    this.#byKind.set(kind, notice);
    this.#changed();
    return notice;
  }

  /** The problem is over (the keychain answered, the collector takes spans again): its notice goes. */
  resolve(kind: NoticeKind): void {
    if (this.#byKind.delete(kind)) this.#changed();
  }

  /**
   * Newest first, masked again with the secrets known now: a notice from early in start-up was
   * reported before the keys and tokens were read.
   */
  list(): Notice[] {
    const secrets = this.#options.knownSecrets();
    return [...this.#byKind.values()]
      .reverse()
      .map((notice) => ({ ...notice, cause: maskCause(notice.cause, secrets, this.#readablePaths) }));
  }

  /** False when no notice has this id (dismissed already, or replaced by a newer one). */
  dismiss(id: string): boolean {
    const notice = [...this.#byKind.values()].find((candidate) => candidate.id === id);
    if (notice === undefined) return false;
    this.#byKind.delete(notice.kind);
    this.#changed();
    return true;
  }

  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Each listener on its own: one that throws must not fail the report() of whoever had a problem to say, nor silence the rest. */
  #changed(): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener();
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        console.error(`[airlock] after a notice changed: ${redactSecrets(message, this.#options.knownSecrets())}`);
      }
    }
  }
}
