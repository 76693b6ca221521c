import type { ConfigFile } from '../../contracts/config.ts';
import { normalizeBaseUrl } from '../../core/baseUrl.ts';
import { secretsEqual } from '../../http/clientTokens.ts';
import { gatewayKeyAccount, KeychainUnavailableError, type SecretStore } from '../../contracts/secretStore.ts';
import { ConnectError } from './toolAdapter.ts';

export interface ImportProfile {
  id: string;
  name: string;
  baseUrl: string;
  /** False when a profile with this gateway and this very key exists already: it is reused. */
  isNew: boolean;
}

const MAX_ID_LENGTH = 48;

/** The profile a key found in a tool's file goes to: an existing one holding it, else a new one named after the host. */
export async function chooseImportProfile(
  config: ConfigFile,
  secrets: SecretStore,
  foundBaseUrl: string,
  key: string,
  toolTitle: string,
): Promise<ImportProfile> {
  const normalized = normalizeBaseUrl(foundBaseUrl);
  if (!normalized.ok)
    throw new ConnectError('invalid', `The gateway address in ${toolTitle}'s config cannot be used: ${normalized.reason}`);
  for (const profile of config.profiles.filter((candidate) => candidate.baseUrl === normalized.baseUrl)) {
    if (secretsEqual((await keychainKey(secrets, profile.id)) ?? '', key)) {
      return { id: profile.id, name: profile.name, baseUrl: profile.baseUrl, isNew: false };
    }
  }
  const host = new URL(normalized.baseUrl).hostname.toLowerCase();
  const stem =
    host
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, MAX_ID_LENGTH) || 'imported';
  const taken = new Set(config.profiles.map((profile) => profile.id));
  let id = stem;
  for (let suffix = 2; taken.has(id); suffix += 1) id = `${stem}-${suffix}`;
  return { id, name: `${host} (from ${toolTitle})`, baseUrl: normalized.baseUrl, isNew: true };
}

async function keychainKey(secrets: SecretStore, profileId: string): Promise<string | null> {
  try {
    return await secrets.get(gatewayKeyAccount(profileId));
  } catch (error) {
    if (error instanceof KeychainUnavailableError) return null;
    throw error;
  }
}
