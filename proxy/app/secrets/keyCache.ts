import type { ConfigFile } from '../../contracts/config.ts';
import { API_KEY_ENV_VAR } from './envKeySource.ts';
import { KeychainNotAnsweringError, KeychainUnavailableError, type SecretStore } from '../../contracts/secretStore.ts';
import { gatewayKeyOfAccount, keyAccountsOf, poolKeyAccount, type PoolKey } from '../../contracts/keyPool.ts';

import type { KeyStatus } from '../../contracts/profileViews.ts';

export type { KeyStatus };

/** A key set for one profile from the environment (EnvKeySource). */
interface EnvironmentKey {
  readonly profileId: string;
  keyFor(profileId: string): string | null;
}

const MIN_LENGTH_TO_SHOW_TAIL = 12;

/** The way on without a keychain when this run already has its gateway key from the environment. */
const ENVIRONMENT_KEY_FALLBACK = `go on without one: this run takes the gateway key from ${API_KEY_ENV_VAR}`;
/** How often requests that find a key unread may ask the keychain again: the Retry-After they are given (targetResolver.ts). */
const READ_AGAIN_EVERY_MS = 5_000;

/** A held key the keychain read as empty with no change of keys said: the likeliest cause is a lock. */
const EMPTY_BUT_HELD = 'it gave no key for an account that had one, and no key was changed: it is probably locked';

/**
 * A key replaced or removed is masked on: requests sent with it may still be running, a gateway may
 * echo it in a later answer (a task's result, an error quoting the key), and an agent may read it
 * from a file the user has not updated. Bounded: the newest few, for a day.
 */
const MAX_RETIRED_KEYS = 16;
const RETIRED_KEY_MASKED_MS = 24 * 60 * 60 * 1000;

/** A key no longer sent, kept for masking only; `profileId` owns the account it was under. */
interface RetiredKey {
  readonly key: string;
  readonly profileId: string;
  readonly retiredAtMs: number;
}

/** The last four characters, or null for a key so short that they would be too large a part of it. */
export function keyLastFour(key: string): string | null {
  return key.length >= MIN_LENGTH_TO_SHOW_TAIL ? key.slice(-4) : null;
}

/** How the CLI and the window describe a key: "set, ends in abcd", "from AIRLOCK_API_KEY for this run, ends in abcd" or "not set". */
export function describeKeyStatus(status: KeyStatus): string {
  if (status.unread) return 'not read yet (the keychain has not given it)';
  if (!status.set) return 'not set';
  const set = status.fromEnvironment ? `from ${API_KEY_ENV_VAR} for this run` : 'set';
  return status.lastFour ? `${set}, ends in ${status.lastFour}` : `${set} (too short to show its end)`;
}

interface ConfigSource {
  snapshot(): ConfigFile;
  onChange(listener: (config: ConfigFile) => void): () => void;
}

/**
 * The gateway keys of all profiles, held in the main process's memory so the request path never
 * waits for the keychain. Nothing here returns a key except getKeyForRequest and poolKeysForRequest,
 * which only the target resolver calls; everything else sees whether a key is set and its last four
 * characters. Keys are held by keychain account: a profile's single key under the profile id, each
 * key of a pool under its own (contracts/keyPool.ts).
 */
export class KeyCache {
  readonly #secrets: SecretStore;
  #keys = new Map<string, string>();
  #retired: RetiredKey[] = [];
  readonly #nowMs: () => number;
  /** Accounts the last load could not read, with the keychain's reason: a key there may exist. */
  #unread = new Map<string, KeychainUnavailableError>();
  /** The accounts the latest load asked for (set when asked, so a reading again covers a load still queued). */
  #accounts: readonly string[] = [];
  /** The accounts the last load that ran was for: the ones `#unread` describes. */
  #loadedAccounts: readonly string[] = [];
  /** Accounts whose save or delete the keychain did not answer: their next reading takes the keychain's word. */
  #unansweredChanges = new Set<string>();
  #readingAgain = false;
  #readAgainNotBeforeMs = 0;
  readonly #listeners = new Set<() => void>();
  #environmentKey: EnvironmentKey | null = null;
  /** Loads run one after another so an older, slower load never overwrites a newer one. */
  #queue: Promise<void> = Promise.resolve();

  constructor(secrets: SecretStore, nowMs: () => number = Date.now) {
    this.#secrets = secrets;
    this.#nowMs = nowMs;
  }

  /**
   * Replaces the cache with the keys of exactly these keychain accounts (a profile id holds its single
   * key). An account the keychain cannot read keeps the key already held for it, with the problem
   * said; the others are read all the same. `keysChanged: false` says nothing changed the keys since
   * the last load (only the profile list did): an account that held a key and reads as empty then
   * keeps it, since a locked keyring whose unlock prompt was dismissed answers with no key (libsecret).
   */
  loadAll(accounts: readonly string[], { keysChanged = true }: { keysChanged?: boolean } = {}): Promise<void> {
    this.#accounts = accounts;
    return this.#enqueue(async () => {
      const next = new Map<string, string>();
      const unread = new Map<string, KeychainUnavailableError>();
      for (const account of accounts) {
        try {
          const key = await this.#secrets.get(account);
          const held = this.#keys.get(account);
          const changed = keysChanged || this.#unansweredChanges.has(account);
          this.#unansweredChanges.delete(account);
          if (key) next.set(account, key);
          else if (!changed && held !== undefined) {
            next.set(account, held);
            unread.set(account, new KeychainUnavailableError(EMPTY_BUT_HELD));
          }
        } catch (error) {
          if (!(error instanceof KeychainUnavailableError)) throw error;
          unread.set(account, error);
          // Unread is not removed: the key it gave before stays in use rather than failing every request as keyless.
          const held = this.#keys.get(account);
          if (held !== undefined) next.set(account, held);
        }
      }
      for (const [account, key] of this.#keys) if (next.get(account) !== key) this.#retire(account, key);
      this.#keys = next;
      this.#unread = unread;
      this.#loadedAccounts = accounts;
      for (const listener of [...this.#listeners]) listener();
    });
  }

  /**
   * Reads the accounts the last load could not read once more, for a request that found one of their
   * keys missing (the keychain may have been unlocked or started since): one reading at a time and
   * one every few seconds, as each may start a keychain helper process or an unlock prompt. Returns
   * the reading, or null when none was started.
   */
  readUnreadAgain(): Promise<void> | null {
    const nowMs = this.#nowMs();
    // A wall clock set back (NTP or the user, often at a resume, when a keychain is locked) would
    // hold further readings back by the step: an unlocked keychain left unread for an hour.
    const waitMs = this.#readAgainNotBeforeMs - nowMs;
    if (waitMs > 0 && waitMs <= READ_AGAIN_EVERY_MS) return null;
    const reading = this.#readUnread();
    if (reading) this.#readAgainNotBeforeMs = nowMs + READ_AGAIN_EVERY_MS;
    return reading;
  }

  #readUnread(): Promise<void> | null {
    if (this.#unread.size === 0 || this.#readingAgain) return null;
    this.#readingAgain = true;
    // Only the profile list may have changed since: a held key read as empty is a locked keyring's answer, kept.
    return this.loadAll(this.#accounts, { keysChanged: false })
      .catch(() => undefined)
      .finally(() => {
        this.#readingAgain = false;
      });
  }

  /** Calls `listener` after each load (the keychain problem may have come or gone). Returns the unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Re-reads one account's key (after another process changed it); a profile id is its single key's account. */
  refresh(account: string): Promise<void> {
    return this.#enqueue(async () => {
      const key = await this.#secrets.get(account);
      this.#replace(account, key);
    });
  }

  /** Stores an already cleaned key in the keychain, then in memory, under a profile id (its single key) or a pool key's account. */
  setKey(account: string, key: string): Promise<void> {
    return this.#enqueue(async () => {
      await this.#unansweredIsUnread(account, this.#secrets.set(account, key));
      this.#replace(account, key);
    });
  }

  deleteKey(account: string): Promise<boolean> {
    let deleted = false;
    return this.#enqueue(async () => {
      deleted = await this.#unansweredIsUnread(account, this.#secrets.delete(account));
      this.#replace(account, null);
    }).then(() => deleted);
  }

  /**
   * A change the keychain did not answer in time may still happen (the prompt answered late): the
   * account is read again when the keychain answers, so the key sent is the one the keychain holds.
   */
  async #unansweredIsUnread<T>(account: string, change: Promise<T>): Promise<T> {
    try {
      return await change;
    } catch (error) {
      if (error instanceof KeychainNotAnsweringError) {
        this.#unread.set(account, error);
        this.#unansweredChanges.add(account);
      }
      throw error;
    }
  }

  /** A key from the environment serves its profile this run (the target resolver sends it): statuses say so. */
  setEnvironmentKey(environmentKey: EnvironmentKey | null): void {
    this.#environmentKey = environmentKey;
  }

  /** A pooled profile's key is set when any of its pool's keys is; the status names the first of those. */
  keyStatus(profileId: string, pool?: readonly PoolKey[]): KeyStatus {
    const fromEnvironment = this.#environmentKey?.keyFor(profileId) ?? null;
    if (fromEnvironment !== null) return { set: true, lastFour: keyLastFour(fromEnvironment), fromEnvironment: true };
    const key = pool === undefined ? this.#keys.get(profileId) : this.poolKeysForRequest(profileId, pool)[0]?.apiKey;
    if (key) return { set: true, lastFour: keyLastFour(key) };
    return this.unreadProblem(keyAccountsOf({ id: profileId, keyPool: pool })) === null
      ? { set: false, lastFour: null }
      : { set: false, lastFour: null, unread: true };
  }

  /** Why keys could not be read (no keychain, or it refused some accounts), or null. */
  keychainProblem(): string | null {
    const [first] = this.#unread.values();
    if (first === undefined) return null;
    // It asks for AIRLOCK_API_KEY only when this run has none.
    const reason = this.#environmentKey === null ? first.message : first.withFallback(ENVIRONMENT_KEY_FALLBACK).message;
    const everyAccount =
      this.#unread.size === this.#loadedAccounts.length && this.#loadedAccounts.every((account) => this.#unread.has(account));
    if (everyAccount) return reason;
    const accounts = [...this.#unread.keys()].map((account) => `"${account}"`).join(', ');
    return `the keychain could not read the key under ${accounts}: ${reason}`;
  }

  /** The keychain's reason for the first of these accounts the last load could not read, or null. */
  unreadProblem(accounts: readonly string[]): KeychainUnavailableError | null {
    for (const account of accounts) {
      const problem = this.#unread.get(account);
      if (problem) return problem;
    }
    return null;
  }

  /** For the request log's masking only: every key held, and those replaced or removed lately, so none can reach a stored body. */
  secretsForMasking(): string[] {
    const current = [...this.#keys.values()];
    const retired = this.#retiredNow();
    return retired.length === 0 ? current : [...current, ...retired.map((entry) => entry.key)];
  }

  /** For the target resolver only: the profile's keys replaced or removed lately, which its answers must not show either. */
  retiredKeysOf(profileId: string): string[] {
    const retired = this.#retiredNow();
    return retired.length === 0 ? [] : retired.filter((entry) => entry.profileId === profileId).map((entry) => entry.key);
  }

  /** One pool key's status: whether the keychain holds it, and its last four characters. */
  poolKeyStatus(profileId: string, keyId: string): KeyStatus {
    const account = poolKeyAccount(profileId, keyId);
    const key = this.#keys.get(account);
    if (key) return { set: true, lastFour: keyLastFour(key) };
    return this.#unread.has(account) ? { set: false, lastFour: null, unread: true } : { set: false, lastFour: null };
  }

  /** For the target resolver only: the key injected into the upstream request. */
  getKeyForRequest(profileId: string): string | null {
    return this.#keys.get(profileId) ?? null;
  }

  /** For the target resolver only: the pool's keys the keychain holds, in the pool's order. */
  poolKeysForRequest(profileId: string, pool: readonly PoolKey[]): { id: string; label: string; apiKey: string }[] {
    const keys: { id: string; label: string; apiKey: string }[] = [];
    for (const entry of pool) {
      const apiKey = this.#keys.get(poolKeyAccount(profileId, entry.id));
      if (apiKey) keys.push({ id: entry.id, label: entry.label, apiKey });
    }
    return keys;
  }

  /**
   * Loads the keys of the config's profiles now, and again whenever the profile list or the keys
   * revision changes (a `key set` from the CLI bumps it). Returns the unsubscribe function.
   */
  follow(config: ConfigSource): { ready: Promise<void>; stop: () => void } {
    let loadedFor = '';
    let loadedRevision: number | null = null;
    const loadIfChanged = (snapshot: ConfigFile): Promise<void> => {
      const accounts = snapshot.profiles.flatMap((profile) => keyAccountsOf(profile));
      const signature = `${snapshot.keysRevision}:${accounts.join('\n')}`;
      if (signature === loadedFor) return this.#queue;
      loadedFor = signature;
      const keysChanged = snapshot.keysRevision !== loadedRevision;
      loadedRevision = snapshot.keysRevision;
      return this.loadAll(accounts, { keysChanged });
    };
    const stopConfig = config.onChange((snapshot) => {
      loadIfChanged(snapshot).catch(() => {
        // loadAll reports an unavailable keychain through keychainProblem(); nothing else to do here.
      });
    });
    // A call that had hung returned: what it held up can be read now.
    const stopAnswers = this.#secrets.onAnswersAgain?.(() => void this.#readUnread());
    const stop = (): void => {
      stopConfig();
      stopAnswers?.();
    };
    return { ready: loadIfChanged(config.snapshot()), stop };
  }

  /** The account's key is now `key` (null: none); a different one it held before is retired. */
  #replace(account: string, key: string | null): void {
    this.#unread.delete(account);
    this.#unansweredChanges.delete(account);
    const previous = this.#keys.get(account);
    if (previous !== undefined && previous !== key) this.#retire(account, previous);
    if (key) this.#keys.set(account, key);
    else this.#keys.delete(account);
  }

  #retire(account: string, key: string): void {
    const { profileId } = gatewayKeyOfAccount(account);
    const others = this.#retired.filter((entry) => entry.key !== key);
    this.#retired = [...others, { key, profileId, retiredAtMs: this.#nowMs() }].slice(-MAX_RETIRED_KEYS);
  }

  #retiredNow(): readonly RetiredKey[] {
    if (this.#retired.length === 0) return this.#retired;
    const since = this.#nowMs() - RETIRED_KEY_MASKED_MS;
    if (this.#retired[0]!.retiredAtMs < since) this.#retired = this.#retired.filter((entry) => entry.retiredAtMs >= since);
    return this.#retired;
  }

  #enqueue(task: () => Promise<void>): Promise<void> {
    const run = this.#queue.then(task);
    this.#queue = run.catch(() => undefined);
    return run;
  }
}
