import { z } from 'zod';

/**
 * A profile's key pool: several gateway keys used in turn, for gateways that limit each key
 * (requests or tokens per minute). The profile file holds only each key's short id and label;
 * the secrets live in the OS keychain, one account per key (poolKeyAccount). A profile without a
 * pool keeps its single key under the profile's own account, as before pools existed.
 */
export const POOL_KEY_ID_PATTERN = /^[a-z0-9]{1,16}$/;

/**
 * The id of the key a profile had before it got a pool: it stays where it was in the keychain
 * (the profile's own account), so turning a single key into a pool moves no secret.
 */
export const FIRST_POOL_KEY_ID = 'main';

export const poolKeySchema = z.object({
  id: z.string().regex(POOL_KEY_ID_PATTERN, 'lowercase letters and digits (at most 16)'),
  label: z.string().trim().min(1, 'a label is needed').max(60, 'at most 60 characters'),
});

export const keyPoolSchema = z
  .array(poolKeySchema)
  .min(1)
  .max(32)
  .refine((keys) => new Set(keys.map((key) => key.id)).size === keys.length, 'each key of the pool needs its own id');

export type PoolKey = z.infer<typeof poolKeySchema>;

/** The keychain account of one key of a profile's pool; the first key keeps the profile's own account. */
export function poolKeyAccount(profileId: string, keyId: string): string {
  return keyId === FIRST_POOL_KEY_ID ? profileId : `${profileId}${POOL_KEY_SEPARATOR}${keyId}`;
}

const POOL_KEY_SEPARATOR = ':key:';

/** The profile and pool key a gateway key's account names (poolKeyAccount's inverse); keyId null for the profile's own. */
export function gatewayKeyOfAccount(account: string): { profileId: string; keyId: string | null } {
  const at = account.indexOf(POOL_KEY_SEPARATOR);
  return at === -1
    ? { profileId: account, keyId: null }
    : { profileId: account.slice(0, at), keyId: account.slice(at + POOL_KEY_SEPARATOR.length) };
}

/** The keychain accounts a profile's key(s) live under: the pool's, or the profile's single one. */
export function keyAccountsOf(profile: { id: string; keyPool?: readonly PoolKey[] | undefined }): string[] {
  return profile.keyPool === undefined ? [profile.id] : profile.keyPool.map((key) => poolKeyAccount(profile.id, key.id));
}

/** How one pooled key stands right now, for the window and the CLI (never the key itself). */
export type PoolKeyState =
  | { state: 'ready' }
  /** The gateway answered 429 with this key: it is skipped until then. */
  | { state: 'cooling'; untilMs: number }
  /** The gateway rejected the key (401/403): skipped until then, then tried once (the auth breaker, per key). */
  | { state: 'rejected'; status: number; retryAtMs: number }
  /** The key is in the profile file but not in the keychain. */
  | { state: 'missing' }
  /** The keychain did not give the key (not answering, locked, refused): it is probably there. */
  | { state: 'unread' };

export interface PoolKeyStatus {
  id: string;
  label: string;
  /** The key's last four characters, when the key is long enough for that to say little of it. */
  lastFour: string | null;
  status: PoolKeyState;
}

/** Which key of a pool one attempt was sent with, as the log and the window show it. */
export interface GatewayKeyUse {
  keyId: string;
  label: string;
}
