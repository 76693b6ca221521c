import { existsSync, mkdirSync, watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { CONFIG_FILE_NAME, configFileSchema, emptyConfig, type ConfigFile } from '../../contracts/config.ts';
import { formatPath, serializeConfig } from './configParse.ts';
import { fileTreeOf, newerFieldsNotice, type NewerFields } from './newerFields.ts';
import { writeFileAtomic } from './atomicWrite.ts';
import {
  danglingLinkTarget,
  readConfigFileState,
  readConfigText,
  sameStamp,
  statStamp,
  type ConfigFileState,
  type FileStamp,
} from './configFileState.ts';
import { lockConfigFile } from './configLock.ts';
import { asDataDirError, DataDirUnwritableError } from '../dataDir.ts';
import { PLAIN_HINT, type NamedCommand } from '../../contracts/cli.ts';

/** The file on disk does not validate: nothing is written until the user fixes or resets it. */
export class ConfigBrokenError extends Error {
  readonly backupPath: string;
  constructor(problem: string, backupPath: string) {
    super(`${problem}. A copy is kept at ${backupPath}; fix the file by hand, or delete it to start over.`);
    this.name = 'ConfigBrokenError';
    this.backupPath = backupPath;
  }
}

/**
 * airlock.json is a symlink (dotfiles) that points at nothing Airlock can use: its target went
 * after Airlock read it, or its folder does not exist. Nothing is written through it: a new file
 * there would hold none of the user's other settings, or could not be made.
 */
export class ConfigLinkError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigLinkError';
  }
}

const linkGone = (target: string): ConfigLinkError =>
  new ConfigLinkError(
    `${CONFIG_FILE_NAME} is a link to ${target}, which is gone: Airlock keeps the settings it last read and saves nothing until it is back, or the link is replaced.`,
  );

/** A mutation produced a config the schema rejects (a bug or a bad value from a form). */
export class ConfigInvalidError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigInvalidError';
  }
}

/**
 * Another program (a text editor, a dotfiles sync) kept rewriting the file while Airlock was
 * saving: nothing was written, so its change stands; the user tries again.
 */
export class ConfigBusyError extends Error {
  constructor() {
    super(`${CONFIG_FILE_NAME} was changed by another program while Airlock was saving: nothing was saved. Try again.`);
    this.name = 'ConfigBusyError';
  }
}

export type ConfigMutator = (config: ConfigFile) => ConfigFile;
export type ConfigListener = (config: ConfigFile) => void;
/** Told when the file on disk becomes unusable or usable again; the message is problem()'s. */
export type ProblemListener = (problem: string | null) => void;

export interface OpenConfigStoreOptions {
  /** Follow writes by other processes (the running proxy and the window do; one-shot CLI commands do not). */
  watch?: boolean;
  /** Backstop for file systems where fs.watch misses events. */
  pollIntervalMs?: number;
  clock?: StoreClock;
  /** How a problem of the file names a command it suggests (its --data-dir); the plain command unless given. */
  command?: NamedCommand;
}

/** The time a missing file is given to come back; a test's own. */
export interface StoreClock {
  nowMs(): number;
  pause(ms: number): Promise<void>;
}

const SYSTEM_CLOCK: StoreClock = {
  nowMs: Date.now,
  pause: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/**
 * How long a file read in this run may be missing before it counts as deleted. An editor's save
 * that renames the file away and the new one in, or a sync tool's replace, leaves a gap of
 * milliseconds; until then the settings read are kept and a save waits for the new file.
 */
export const MISSING_GRACE_MS = 1_000;
const MISSING_RECHECK_MS = 20;
/** Reads again after another program's save landed mid-update; past this the user is asked to retry. */
const MAX_UPDATE_ATTEMPTS = 3;

/**
 * The config file `airlock.json`, shared by the app, `airlock serve` and the CLI. Reads on the
 * request path are synchronous from an in-memory snapshot; every mutation is a read-modify-write
 * under a cross-process lock, so concurrent writers lose nothing; a program that does not take the
 * lock (an editor) and saves meanwhile has its save kept and the change made again on top of it.
 */
export class ConfigStore {
  readonly dataDir: string;
  readonly filePath: string;
  #snapshot: ConfigFile;
  #loadedStamp: FileStamp | null = null;
  #problem: ConfigBrokenError | ConfigLinkError | null = null;
  /** A newer Airlock's fields in the file last read or written, kept at each save. */
  #newer: NewerFields | null = null;
  /** When the file read in this run was first seen missing; null while it is there. */
  #missingSinceMs: number | null = null;
  readonly #clock: StoreClock;
  readonly #command: NamedCommand;
  #listeners = new Set<ConfigListener>();
  #problemListeners = new Set<ProblemListener>();
  #watcher: FSWatcher | null = null;
  #pollTimer: NodeJS.Timeout | null = null;

  constructor(dataDir: string, clock: StoreClock = SYSTEM_CLOCK, command: NamedCommand = PLAIN_HINT.command) {
    this.dataDir = dataDir;
    this.#clock = clock;
    this.#command = command;
    this.filePath = path.join(dataDir, CONFIG_FILE_NAME);
    this.#snapshot = deepFreeze(emptyConfig());
  }

  /** The last valid config; synchronous and free of I/O. */
  snapshot(): ConfigFile {
    return this.#snapshot;
  }

  /** Why the file on disk is not being used, or null when it is fine. */
  problem(): string | null {
    return this.#problem?.message ?? null;
  }

  /**
   * What to tell the user at start about the file, or null: a symlink made before its file (a
   * dotfiles tool) leaves Airlock with no settings, which would look like a lost config.
   */
  startNotice(): string | null {
    const target = danglingLinkTarget(this.filePath);
    if (target === null) return null;
    return `${CONFIG_FILE_NAME} is a link to ${target}, which does not exist yet: Airlock starts with no settings, and the first save creates it.`;
  }

  /** The file holds a newer Airlock's settings, unused here (a roll-back): which, or null. */
  newerFieldsNotice(): string | null {
    return this.#newer === null ? null : newerFieldsNotice(this.#newer, formatPath);
  }

  onChange(listener: ConfigListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  onProblemChange(listener: ProblemListener): () => void {
    this.#problemListeners.add(listener);
    return () => this.#problemListeners.delete(listener);
  }

  /** Re-reads the file if it changed since it was last loaded. */
  reload(): void {
    const stamp = statStamp(this.filePath);
    if (stamp === null) {
      this.#whileMissing();
      return;
    }
    if (sameStamp(stamp, this.#loadedStamp) && this.#missingSinceMs === null) return;
    const state = readConfigFileState(this.filePath, this.#command);
    if (state.kind === 'missing') {
      this.#whileMissing();
      return;
    }
    this.#missingSinceMs = null;
    if (state.kind === 'broken') {
      this.#loadedStamp = state.stamp;
      this.#setProblem(new ConfigBrokenError(state.message, state.backupPath));
      return;
    }
    this.#setProblem(null);
    this.#loadedStamp = state.stamp;
    this.#newer = state.newer;
    this.#publish(state.config);
  }

  /**
   * No file (or a link to none). Never read in this run: the empty config, and a broken file
   * deleted is a start over. Read before: kept through an editor's rename-save; past the grace a
   * deleted file is a start over (what the broken-file message offers), a link's gone target a
   * problem that keeps the settings.
   */
  #whileMissing(): ConfigLinkError | null {
    if (this.#loadedStamp === null) {
      if (this.#problem !== null) {
        this.#setProblem(null);
        this.#publish(emptyConfig());
      }
      return null;
    }
    const nowMs = this.#clock.nowMs();
    this.#missingSinceMs ??= nowMs;
    if (nowMs - this.#missingSinceMs < MISSING_GRACE_MS) return null;
    const target = danglingLinkTarget(this.filePath);
    if (target !== null) return this.#setProblem(linkGone(target));
    this.#loadedStamp = null;
    this.#missingSinceMs = null;
    this.#setProblem(null);
    this.#publish(emptyConfig());
    return null;
  }

  /** The file's state; one read in this run and now missing is given the grace to come back first. */
  async #settledState(): Promise<ConfigFileState> {
    let state = readConfigFileState(this.filePath, this.#command);
    if (state.kind !== 'missing' || this.#loadedStamp === null) return state;
    const sinceMs = this.#missingSinceMs ?? this.#clock.nowMs();
    while (state.kind === 'missing' && this.#clock.nowMs() - sinceMs < MISSING_GRACE_MS) {
      await this.#clock.pause(MISSING_RECHECK_MS);
      state = readConfigFileState(this.filePath, this.#command);
    }
    if (state.kind !== 'missing') return state;
    this.#missingSinceMs = sinceMs;
    const linkProblem = this.#whileMissing();
    if (linkProblem) throw linkProblem;
    return state;
  }

  /** Applies `mutator` to the current file content under the cross-process lock and writes the result. */
  async update(mutator: ConfigMutator): Promise<ConfigFile> {
    return this.#withLock(async () => {
      for (let attempt = 1; attempt <= MAX_UPDATE_ATTEMPTS; attempt += 1) {
        const state = await this.#settledState();
        if (state.kind === 'broken') throw this.#setProblem(new ConfigBrokenError(state.message, state.backupPath));
        const next = mutator(structuredClone(state.kind === 'ok' ? state.config : emptyConfig()));
        // Editors and sync tools do not take Airlock's lock: a save of theirs since the read would
        // be overwritten without a word, so the change is made again on what they wrote.
        if (readConfigText(this.filePath) === (state.kind === 'ok' ? state.text : null))
          return this.#write(next, state.kind === 'ok' ? state.newer : null);
      }
      throw new ConfigBusyError();
    });
  }

  /** Starts over with an empty config; a broken file has already been copied aside by the read. */
  async reset(): Promise<ConfigFile> {
    return this.#withLock(() => {
      readConfigFileState(this.filePath, this.#command);
      return this.#write(emptyConfig(), null);
    });
  }

  /**
   * Idempotent: one poll however often it is called (close clears only the one it holds); a call
   * after the watcher failed makes a new watcher beside the poll that went on.
   */
  startWatching(pollIntervalMs = 2_000): void {
    const onEvent = (): void => {
      try {
        this.reload();
      } catch {
        // A read racing a rename or a permission change: the next event or poll retries.
      }
    };
    if (this.#watcher === null) {
      mkdirSync(this.dataDir, { recursive: true, mode: 0o700 });
      try {
        this.#watcher = watch(this.dataDir, { persistent: false }, (_event, fileName) => {
          if (fileName === null || fileName === CONFIG_FILE_NAME) onEvent();
        });
        this.#watcher.on('error', () => this.#stopWatcher());
      } catch {
        // No watcher to be had (Linux's inotify limit, ENOSPC): the poll below still sees every change.
      }
    }
    if (this.#pollTimer === null) {
      this.#pollTimer = setInterval(onEvent, pollIntervalMs);
      this.#pollTimer.unref();
    }
  }

  close(): void {
    this.#stopWatcher();
    if (this.#pollTimer) clearInterval(this.#pollTimer);
    this.#pollTimer = null;
    this.#listeners.clear();
    this.#problemListeners.clear();
  }

  #stopWatcher(): void {
    this.#watcher?.close();
    this.#watcher = null;
  }

  #write(next: ConfigFile, newer: NewerFields | null): ConfigFile {
    const validated = configFileSchema.safeParse(next);
    if (!validated.success) {
      const issue = validated.error.issues[0];
      throw new ConfigInvalidError(issue ? `${formatPath(issue.path) || 'config'}: ${issue.message}` : 'invalid config');
    }
    // A link made before its file is written through (writeFileAtomic), unless its folder is not there (not cloned, not mounted).
    const target = danglingLinkTarget(this.filePath);
    if (target !== null && !existsSync(path.dirname(target))) {
      throw new ConfigLinkError(
        `${CONFIG_FILE_NAME} is a link to ${target}, whose folder ${path.dirname(target)} does not exist: create or mount it, or replace the link.`,
      );
    }
    writeFileAtomic(this.filePath, serializeConfig(fileTreeOf(validated.data, newer)));
    this.#newer = newer;
    this.#loadedStamp = statStamp(this.filePath);
    this.#missingSinceMs = null;
    this.#setProblem(null);
    this.#publish(validated.data);
    return this.#snapshot;
  }

  #setProblem<T extends ConfigBrokenError | ConfigLinkError | null>(problem: T): T {
    const changed = problem?.message !== this.#problem?.message;
    this.#problem = problem;
    if (changed) {
      for (const listener of this.#problemListeners) {
        try {
          listener(problem?.message ?? null);
        } catch {
          // A listener's failure must not stop the others or the reader.
        }
      }
    }
    return problem;
  }

  #publish(config: ConfigFile): void {
    this.#snapshot = deepFreeze(config);
    for (const listener of this.#listeners) {
      try {
        listener(this.#snapshot);
      } catch {
        // A listener's failure must not stop the others or the writer.
      }
    }
  }

  async #withLock<T>(action: () => T | Promise<T>): Promise<T> {
    try {
      mkdirSync(this.dataDir, { recursive: true, mode: 0o700 });
    } catch (error) {
      throw asDataDirError(this.dataDir, error);
    }
    const release = await lockConfigFile(this.dataDir, this.filePath);
    try {
      return await action();
    } catch (error) {
      throw asDataDirError(this.dataDir, error);
    } finally {
      await release();
    }
  }
}

export function openConfigStore(dataDir: string, options: OpenConfigStoreOptions = {}): ConfigStore {
  const store = new ConfigStore(dataDir, options.clock, options.command);
  try {
    store.reload();
  } catch (error) {
    // A file where the directory belongs (ENOTDIR), or a file of another user's, fails the first look at
    // airlock.json: said as such. Any other failure to read is no failure to write, and keeps its own words.
    const named = asDataDirError(dataDir, error);
    throw named instanceof DataDirUnwritableError ? error : named;
  }
  if (options.watch) store.startWatching(options.pollIntervalMs);
  return store;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
