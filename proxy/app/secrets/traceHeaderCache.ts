import type { ConfigFile, TraceExportSettings } from '../../contracts/config.ts';
import { KeychainUnavailableError, traceHeaderAccount, type SecretStore } from '../../contracts/secretStore.ts';
import type { TraceExportHeaderView } from '../../contracts/traceHeaders.ts';
import { missingHeadersProblem, traceHeadersFallback } from '../export/traceHeaders.ts';
import { PLAIN_HINT, type CommandHint } from '../../contracts/cli.ts';
import { keyLastFour } from './keyCache.ts';

/** The header values of one reading of the keychain. */
export interface TraceHeaderValues {
  /** By lowercase name: what the exporter sends. */
  values: ReadonlyMap<string, string>;
  /** Why some named headers have no value (no keychain, none stored), with the fix; null when all do. */
  problem: string | null;
}

const NONE: TraceHeaderValues = { values: new Map(), problem: null };

interface ConfigSource {
  snapshot(): ConfigFile;
  onChange(listener: (config: ConfigFile) => void): () => void;
}

/**
 * The trace export's header values, read from the keychain whenever airlock.json names other
 * headers or bumps their revision (a `--header` from the CLI, a save in the window), and held in
 * memory: the exporter sends them, the log masks them. Nothing here gives a value to anything else;
 * the window and the CLI see names and last four characters.
 */
export class TraceHeaderCache {
  readonly #secrets: SecretStore;
  #reading: { signature: string; values: Promise<TraceHeaderValues> } | null = null;
  #current: TraceHeaderValues = NONE;
  /** The last reading failed for the keychain (not for a value missing): one when it answers again may succeed. */
  #keychainFailed = false;
  readonly #listeners = new Set<() => void>();
  /** How its problems name this Airlock's commands (its --data-dir, serve's --port). */
  readonly #hint: CommandHint;

  constructor(secrets: SecretStore, hint: CommandHint = PLAIN_HINT) {
    this.#secrets = secrets;
    this.#hint = hint;
  }

  /** The values for these settings: read once per change of names or revision, the same promise meanwhile. */
  valuesFor(settings: TraceExportSettings): Promise<TraceHeaderValues> {
    const signature = `${settings.headersRevision}:${settings.headerNames.join('\n')}`;
    if (this.#reading?.signature === signature) return this.#reading.values;
    const values = this.#read(settings.headerNames).then(({ keychainFailed, ...read }) => {
      // A slower, older reading never replaces a newer one.
      if (this.#reading?.values === values) {
        this.#current = read;
        this.#keychainFailed = keychainFailed;
      }
      return read;
    });
    this.#reading = { signature, values };
    return values;
  }

  /** Reads the values now and again whenever the setting changes. */
  follow(config: ConfigSource): { ready: Promise<TraceHeaderValues>; stop: () => void } {
    const stopConfig = config.onChange((snapshot) => {
      this.valuesFor(snapshot.settings.traceExport).catch(() => {
        // An unreachable keychain is a problem() of the reading, not a failure; nothing else to do here.
      });
    });
    // A keychain that had hung answers again: the values it could not give are read now, and the export told.
    const stopAnswers = this.#secrets.onAnswersAgain?.(() => {
      if (!this.#keychainFailed) return;
      this.#reading = null;
      this.valuesFor(config.snapshot().settings.traceExport).then(
        () => {
          // Told only when the values were read this time: a reading that failed again changes nothing for the export.
          if (this.#keychainFailed) return;
          for (const listener of [...this.#listeners]) listener();
        },
        () => {
          // As for a change of settings: the reading's problem() says it; nothing else to do here.
        },
      );
    });
    const stop = (): void => {
      stopConfig();
      stopAnswers?.();
    };
    return { ready: this.valuesFor(config.snapshot().settings.traceExport), stop };
  }

  /** Calls `listener` when values the keychain could not give were read after all. Returns the unsubscribe function. */
  onValuesReread(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** For masking only (knownSecretsFrom): every value held, as stored. */
  values(): string[] {
    return [...this.#current.values.values()];
  }

  /** The headers named in the setting, as the window and the CLI show them. */
  views(names: readonly string[]): TraceExportHeaderView[] {
    return names.map((name) => {
      const value = this.#current.values.get(name);
      return { name, set: value !== undefined, lastFour: value === undefined ? null : keyLastFour(value) };
    });
  }

  /** Why the last reading found no value for some header, or null. */
  problem(): string | null {
    return this.#current.problem;
  }

  async #read(names: readonly string[]): Promise<TraceHeaderValues & { keychainFailed: boolean }> {
    if (names.length === 0) return { ...NONE, keychainFailed: false };
    const values = new Map<string, string>();
    try {
      for (const name of names) {
        const value = await this.#secrets.get(traceHeaderAccount(name));
        if (value) values.set(name, value);
      }
    } catch (error) {
      if (!(error instanceof KeychainUnavailableError)) throw error;
      return { values: new Map(), problem: error.withFallback(traceHeadersFallback(this.#hint)).message, keychainFailed: true };
    }
    const missing = names.filter((name) => !values.has(name));
    return { values, problem: missing.length === 0 ? null : missingHeadersProblem(missing, this.#hint.command), keychainFailed: false };
  }
}
