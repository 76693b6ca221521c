import { randomBytes } from 'node:crypto';
import type { ConfigFile } from '../../contracts/config.ts';
import { FIRST_POOL_KEY_ID, poolKeyAccount, poolKeySchema, type PoolKey } from '../../contracts/keyPool.ts';
import type { SecretStore } from '../../contracts/secretStore.ts';
import { redactKnownSecrets } from '../../core/redact.ts';
import type { ConfigMutator } from './configStore.ts';
import { bumpKeysRevision, ConfigEditError, requireProfile } from './configMutations.ts';

/**
 * Adding, relabelling, replacing and removing the keys of a profile's pool, for the CLI and the
 * window alike: the secret goes to the keychain, the id and label to the profile file, and the
 * keys revision is bumped so a running proxy reloads its keys.
 *
 * Migration: a profile with one key has no pool. Its first added key makes the pool, and the key
 * it had joins as the pool's first ("main", labelled "key 1"), staying in the keychain account it
 * had, so no secret moves. Removing the pool's last key removes the pool: the profile has no key.
 */
export interface KeyPoolEditDeps {
  secrets: SecretStore;
  config: { snapshot(): ConfigFile; update(mutator: ConfigMutator): Promise<ConfigFile> };
}

const FIRST_KEY_LABEL = 'key 1';

/** A label that cannot be used (empty, too long, or holding a key): the window points at the label field. */
export class PoolLabelError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PoolLabelError';
  }
}

export async function addPoolKey(deps: KeyPoolEditDeps, profileId: string, label: string | undefined, key: string): Promise<PoolKey> {
  const profile = requireProfile(deps.config.snapshot(), profileId);
  const singleKeyHeld = profile.keyPool === undefined && (await deps.secrets.get(profileId)) !== null;
  const existing = profile.keyPool ?? (singleKeyHeld ? [{ id: FIRST_POOL_KEY_ID, label: FIRST_KEY_LABEL }] : []);
  const entry = parseEntry({ id: newKeyId(), label: label ?? `key ${existing.length + 1}` });
  refuseKeyInLabel(entry.label, [key]);
  await deps.secrets.set(poolKeyAccount(profileId, entry.id), key);
  await deps.config.update((config) => {
    const current = requireProfile(config, profileId);
    const pool = current.keyPool ?? (singleKeyHeld ? [{ id: FIRST_POOL_KEY_ID, label: FIRST_KEY_LABEL }] : []);
    return bumpKeysRevision(withPool(config, profileId, [...pool, entry]));
  });
  return entry;
}

export async function removePoolKey(deps: KeyPoolEditDeps, profileId: string, keyId: string): Promise<void> {
  requirePoolKey(deps.config.snapshot(), profileId, keyId);
  await deps.config.update((config) => {
    const pool = requirePoolKey(config, profileId, keyId).pool.filter((entry) => entry.id !== keyId);
    return bumpKeysRevision(withPool(config, profileId, pool));
  });
  await deps.secrets.delete(poolKeyAccount(profileId, keyId));
}

export async function relabelPoolKey(deps: KeyPoolEditDeps, profileId: string, keyId: string, label: string): Promise<PoolKey> {
  const entry = parseEntry({ id: keyId, label });
  const pool = requirePoolKey(deps.config.snapshot(), profileId, keyId).pool;
  const secrets = await Promise.all(pool.map((candidate) => deps.secrets.get(poolKeyAccount(profileId, candidate.id))));
  refuseKeyInLabel(
    entry.label,
    secrets.filter((secret): secret is string => secret !== null),
  );
  await deps.config.update((config) => {
    const pool = requirePoolKey(config, profileId, keyId).pool.map((candidate) => (candidate.id === keyId ? entry : candidate));
    return withPool(config, profileId, pool);
  });
  return entry;
}

/** A new secret for a key already in the pool. */
export async function replacePoolKey(deps: KeyPoolEditDeps, profileId: string, keyId: string, key: string): Promise<void> {
  requirePoolKey(deps.config.snapshot(), profileId, keyId);
  await deps.secrets.set(poolKeyAccount(profileId, keyId), key);
  await deps.config.update(bumpKeysRevision);
}

export function requirePoolKey(config: ConfigFile, profileId: string, keyId: string): { pool: PoolKey[]; entry: PoolKey } {
  const profile = requireProfile(config, profileId);
  const pool = profile.keyPool ?? [];
  const entry = pool.find((candidate) => candidate.id === keyId);
  if (!entry) {
    const known = pool.map((candidate) => candidate.id);
    throw new ConfigEditError((command) =>
      known.length > 0
        ? `profile "${profileId}" has no key with id "${keyId}" (keys: ${known.join(', ')})`
        : `profile "${profileId}" has no key pool: add keys with \`${command(`key add ${profileId}`)}\``,
    );
  }
  return { pool, entry };
}

function withPool(config: ConfigFile, profileId: string, pool: PoolKey[]): ConfigFile {
  return {
    ...config,
    profiles: config.profiles.map((profile) => {
      if (profile.id !== profileId) return profile;
      const { keyPool: _old, ...rest } = profile;
      return pool.length === 0 ? rest : { ...rest, keyPool: pool };
    }),
  };
}

/** A label is shown and written in plain text: a key pasted into it by mistake is refused, in any encoding. */
function refuseKeyInLabel(label: string, keys: readonly string[]): void {
  if (redactKnownSecrets(label, [...keys]) !== label) {
    throw new PoolLabelError(
      'the label holds a gateway key: give the key a plain name (such as "team A"); the key itself goes only in the key field',
    );
  }
}

function parseEntry(input: PoolKey): PoolKey {
  const result = poolKeySchema.safeParse(input);
  if (result.success) return result.data;
  throw new PoolLabelError(`key label: ${result.error.issues[0]?.message ?? 'invalid'}`);
}

/** Six hex digits: short enough to type, and never "main" (the first key's id). */
function newKeyId(): string {
  return randomBytes(3).toString('hex');
}
