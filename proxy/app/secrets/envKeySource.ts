import { API_KEY_ENV_VAR, cleanApiKey } from '../../core/apiKey.ts';

export { API_KEY_ENV_VAR };

/**
 * A gateway key from `AIRLOCK_API_KEY`, for one run where no keychain is available (or the user
 * prefers the environment). It is bound to one profile, so it is never sent to another
 * gateway's base URL, and it is kept in memory only: nothing is ever written to disk.
 */
export class EnvKeySource {
  readonly profileId: string;
  readonly #key: string;

  private constructor(profileId: string, key: string) {
    this.profileId = profileId;
    this.#key = key;
  }

  /** null when the variable is unset or blank; throws with the reason when the value cannot be a key. */
  static fromEnvironment(env: NodeJS.ProcessEnv, profileId: string): EnvKeySource | null {
    const raw = env[API_KEY_ENV_VAR];
    if (raw === undefined || raw.trim() === '') return null;
    const cleaned = cleanApiKey(raw);
    if (!cleaned.ok) throw new Error(`${API_KEY_ENV_VAR}: ${cleaned.reason}`);
    return new EnvKeySource(profileId, cleaned.key);
  }

  keyFor(profileId: string): string | null {
    return profileId === this.profileId ? this.#key : null;
  }
}
