import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { suggestedCommand } from '../../contracts/cli.ts';
import { isGatewayKeyAccount, KeychainUnavailableError, type SecretStore } from '../../contracts/secretStore.ts';
import { gatewayKeyOfAccount } from '../../contracts/keyPool.ts';
import { defaultDataDir } from '../dataDir.ts';

/**
 * The keychain's accounts are named by profile id, token and header name, the same in every data
 * directory; a profile "work" of a second data directory, pointed at another gateway, would send the
 * first directory's "work" key there. So each data directory other than the default one keeps its
 * secrets under accounts prefixed with a hash of its path; the default one keeps the plain names it
 * always had, so its users move nothing.
 */
export function secretStoreForDataDir(
  secrets: SecretStore,
  dataDir: string,
  host: { env: NodeJS.ProcessEnv; platform: NodeJS.Platform; homedir: string },
): SecretStore {
  const resolved = canonicalPath(dataDir);
  if (resolved === canonicalPath(defaultDataDir(host.env, host.platform, host.homedir))) return secrets;
  return scopedSecretStore(secrets, dataDir, dataDirAccountPrefix(resolved));
}

/** The prefix of a data directory's own accounts: short, and the same for every way of naming the directory. */
function dataDirAccountPrefix(resolvedDataDir: string): string {
  return `dir-${createHash('sha256').update(resolvedDataDir).digest('hex').slice(0, 12)}/`;
}

/**
 * The directory's real path, following symlinks as far as it exists: `key set` may run before the
 * directory is made, and its accounts must be the ones `serve` finds once it is.
 */
function canonicalPath(directory: string): string {
  const absolute = path.resolve(directory);
  const missing: string[] = [];
  let existing = absolute;
  for (;;) {
    try {
      return path.join(realpathSync.native(existing), ...missing);
    } catch {
      const parent = path.dirname(existing);
      if (parent === existing) return absolute;
      missing.unshift(path.basename(existing));
      existing = parent;
    }
  }
}

/**
 * A gateway key found only under the plain account: set before data directories had their own, it may
 * be another directory's key for another gateway, so it is never sent; the way to give this directory
 * its own is said instead.
 */
export class UnscopedKeyError extends KeychainUnavailableError {
  constructor(account: string, dataDir: string) {
    super(`the key is under the account shared by every data directory, not under ${dataDir}'s own`);
    this.name = 'UnscopedKeyError';
    this.message =
      `the keychain holds a key for "${account}" only under the account every data directory shares, not under this data directory's own (${dataDir}); ` +
      `Airlock does not send it, as it may be another data directory's key for another gateway. Run \`${setKeyCommand(account, dataDir)}\` to give this data directory its key`;
  }

  override withFallback(): UnscopedKeyError {
    return this;
  }
}

function setKeyCommand(account: string, dataDir: string): string {
  const { profileId, keyId } = gatewayKeyOfAccount(account);
  const keyOption = keyId === null ? '' : ` --key ${keyId}`;
  return suggestedCommand(`key set ${profileId}${keyOption}`, dataDir);
}

function scopedSecretStore(secrets: SecretStore, dataDir: string, prefix: string): SecretStore {
  return {
    async get(account) {
      const own = await secrets.get(`${prefix}${account}`);
      if (own !== null || !isGatewayKeyAccount(account)) return own;
      if ((await secrets.get(account)) !== null) throw new UnscopedKeyError(account, dataDir);
      return null;
    },
    set: (account, secret) => secrets.set(`${prefix}${account}`, secret),
    delete: (account) => secrets.delete(`${prefix}${account}`),
    ...(secrets.onAnswersAgain ? { onAnswersAgain: (listener: () => void) => secrets.onAnswersAgain!(listener) } : {}),
  };
}
