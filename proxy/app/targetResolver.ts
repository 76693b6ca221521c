import type { ConfigFile } from '../contracts/config.ts';
import type { Profile } from '../contracts/profile.ts';
import type { ClientIdentity, LocalRefusal, TargetRefusal, TargetResolver, UpstreamTarget } from '../contracts/ports.ts';
import { PLAIN_HINT, type NamedCommand } from '../contracts/cli.ts';
import { keyAccountsOf, type PoolKey } from '../contracts/keyPool.ts';
import { KeychainNotAnsweringError, type KeychainUnavailableError } from '../contracts/secretStore.ts';
import { isLocalRefusal } from '../contracts/ports.ts';
import type { KeyPools, PoolKeyWithSecret } from '../spend/keyPool.ts';

interface KeySource {
  getKeyForRequest(profileId: string): string | null;
  /** Needed only with pools (the key cache has it). */
  poolKeysForRequest?(profileId: string, pool: readonly PoolKey[]): PoolKeyWithSecret[];
  /** The profile's keys replaced or removed lately, masked in its answers (the key cache has them). */
  retiredKeysOf?(profileId: string): readonly string[];
  /** Why the keychain could not read the first of these accounts, or null: a missing key is then not the user's doing. */
  unreadProblem?(accounts: readonly string[]): KeychainUnavailableError | null;
  /** Asks the keychain once more for what it could not read (it may have been unlocked since). */
  readUnreadAgain?(): void;
}

interface EnvKey {
  keyFor(profileId: string): string | null;
}

/**
 * Identity -> the profile and key one request uses: the token's pinned profile, else the active
 * one. Read from the in-memory snapshot at the start of the request, so a profile switch affects
 * only later requests. A key from the environment, set for this run, wins for its profile.
 */
export function createTargetResolver(
  config: { snapshot(): ConfigFile },
  keys: KeySource,
  envKey?: EnvKey | null,
  pools?: KeyPools,
  command: NamedCommand = PLAIN_HINT.command,
): TargetResolver {
  // One for every request, given the profile's id when asked: a request makes nothing for a key it may never ask again.
  const keyNow = (profileId: string): string | null => keys.getKeyForRequest(profileId);
  return {
    resolve(identity: ClientIdentity): UpstreamTarget | TargetRefusal {
      const snapshot = config.snapshot();
      const profileId = identity.pinnedProfileId ?? snapshot.activeProfileId;
      if (profileId === null) return noProfile(snapshot, command);
      const profile = snapshot.profiles.find((candidate) => candidate.id === profileId);
      if (!profile) return noProfile(snapshot, command);
      const environmentKey = envKey?.keyFor(profileId) ?? null;
      const retired = keys.retiredKeysOf?.(profileId) ?? [];
      const retiredKeys = retired.length === 0 ? {} : { retiredKeys: retired };
      // A key from the environment is one key for this run: it replaces the pool like the single key.
      if (environmentKey === null && profile.keyPool !== undefined && pools !== undefined && keys.poolKeysForRequest) {
        const { keyPool } = profile;
        const poolKeysNow = keys.poolKeysForRequest.bind(keys, profileId, keyPool);
        const poolKeys = poolKeysNow();
        if (poolKeys.length === 0) return noKey(profileId, unreadProblem(keys, profile), true, command);
        const lease = pools.lease(profile, poolKeys, Date.now(), poolKeysNow);
        if (!isLocalRefusal(lease)) return { profile, apiKey: lease.current.apiKey, keyLease: lease, ...retiredKeys };
        // Held, not gone: the request may still go to the profile's fallback list.
        return { ...lease, held: { profile, secrets: poolKeys.map((key) => key.apiKey) } };
      }
      const apiKey = environmentKey ?? keys.getKeyForRequest(profileId);
      if (!apiKey) return noKey(profileId, unreadProblem(keys, profile), false, command);
      if (environmentKey !== null) return { profile, apiKey, keyFromEnvironment: true, ...retiredKeys };
      return { profile, apiKey, keyNow, ...retiredKeys };
    },
  };
}

/** Why the keychain could not read this profile's keys, asking it again (the answer serves a later request); null when they were read. */
function unreadProblem(keys: KeySource, profile: Profile): KeychainUnavailableError | null {
  const problem = keys.unreadProblem?.(keyAccountsOf(profile)) ?? null;
  if (problem) keys.readUnreadAgain?.();
  return problem;
}

/**
 * Seconds a client waits before asking again while the keychain has not answered (an unlock prompt may
 * be open). The OpenAI and Anthropic SDKs retry a 5xx twice by default, after Retry-After when given
 * (openai-python's retry docs: 408, 409, 429 and 5xx), so a prompt answered within ~10 s loses no request.
 */
const KEYCHAIN_RETRY_AFTER_SECONDS = 5;

/**
 * 403, not 5xx: every client retries 5xx, and a missing key is fixed by configuration, not by waiting.
 * The fix named is one that works: a pool's key is set by its id, and an unreadable keychain is no
 * missing key (setting one would fail the same way). A keychain that has not answered yet is the
 * exception: waiting does fix it (the prompt answered, the key read), so it is a 503 with Retry-After.
 */
function noKey(profileId: string, keychainProblem: KeychainUnavailableError | null, pooled: boolean, command: NamedCommand): LocalRefusal {
  if (keychainProblem instanceof KeychainNotAnsweringError) {
    return {
      status: 503,
      errorClass: 'no_key',
      code: 'keychain_not_answering',
      message: `Airlock has not read the gateway key of profile "${profileId}" yet: ${keychainProblem.message}.`,
      headers: { 'retry-after': String(KEYCHAIN_RETRY_AFTER_SECONDS) },
    };
  }
  const setKey = pooled
    ? `Run \`${command(`key set ${profileId} --key <id>`)}\` (ids: \`${command(`key list ${profileId}`)}\`) or \`${command(`key add ${profileId}`)}\`, or set one in the Airlock window.`
    : `Run \`${command(`key set ${profileId}`)}\` or set it in the Airlock window.`;
  const message =
    keychainProblem === null
      ? `Profile "${profileId}" has no gateway key. ${setKey}`
      : `Airlock could not read the gateway key of profile "${profileId}": ${keychainProblem.message}.`;
  return { status: 403, errorClass: 'no_key', code: 'no_key', message };
}

function noProfile(snapshot: ConfigFile, command: NamedCommand): LocalRefusal {
  const message =
    snapshot.profiles.length === 0
      ? `Airlock has no gateway profile yet. Add one with \`${command('profile add <id> --base-url <url>')}\` or in the Airlock window.`
      : `No active profile. Choose one with \`${command('profile use <id>')}\` (profiles: ${snapshot.profiles.map((p) => p.id).join(', ')}) or in the Airlock window.`;
  return { status: 403, errorClass: 'no_key', code: 'no_profile', message };
}
