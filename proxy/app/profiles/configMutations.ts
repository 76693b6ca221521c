import { CLIENT_TOKEN_PREFIX, CONTROL_TOKEN_PREFIX } from '../../contracts/clientTokens.ts';
import type { ClientTokenRecord, ConfigFile, Settings } from '../../contracts/config.ts';
import { fallbackProblems, profileSchema, type Profile, type ProfileInput } from '../../contracts/profile.ts';
import { normalizeBaseUrl } from '../../core/baseUrl.ts';
import { redactSecrets } from '../../core/redact.ts';
import { PLAIN_HINT, type NamedCommand } from '../../contracts/cli.ts';
import { lineBreakingCharacter, modelIdCharacterRefusal } from '../../contracts/displayText.ts';

/**
 * Pure edits of the config, each returning the next config or throwing a ConfigEditError whose
 * message is shown to the user as-is. ConfigStore.update runs them under the file lock.
 */
export class ConfigEditError extends Error {
  readonly #text: (command: NamedCommand) => string;
  /** A message that suggests a command is given as a function of how to name it: the edit does not know which Airlock it is. */
  constructor(message: string | ((command: NamedCommand) => string)) {
    const text = typeof message === 'string' ? () => message : message;
    super(text(PLAIN_HINT.command));
    this.name = 'ConfigEditError';
    this.#text = text;
  }

  /** The message with its commands named as the Airlock that shows it names them (its --data-dir). */
  messageFor(command: NamedCommand): string {
    return this.#text(command);
  }
}

export interface AddProfileOptions {
  /** Make it the active profile; the first profile always becomes active. */
  activate?: boolean;
}

export function addProfile(config: ConfigFile, input: ProfileInput, options: AddProfileOptions = {}): ConfigFile {
  // A key of lowercase letters and digits (sk- and 32 hex digits, as DeepSeek's: github.com/panzhenhai520/webmedic/issues/3) is a valid id: kept, it named the profile in
  // airlock.json, the keychain account, every listing, the window and each logged request. Existing ones still resolve.
  if (holdsKey(input.id)) {
    throw new ConfigEditError(
      'the id looks like a gateway key, and was not saved: give the profile a plain id (such as "work"); the key goes in the key field',
    );
  }
  if (config.profiles.some((profile) => profile.id === input.id)) {
    throw new ConfigEditError(
      `a profile with id "${input.id}" already exists: pick another id, or change that profile (its settings, its key) instead`,
    );
  }
  refuseUnfitName(input.name);
  refuseUnfitModelIds(input);
  const profile = parseProfile({ ...input, baseUrl: normalizedBaseUrl(input.baseUrl) });
  checkFallbacks(config, profile);
  const activate = options.activate === true || config.activeProfileId === null;
  return { ...config, profiles: [...config.profiles, profile], activeProfileId: activate ? profile.id : config.activeProfileId };
}

/** Changes any field but the id; a new base URL is normalised like a new profile's. */
export function updateProfile(config: ConfigFile, id: string, patch: Partial<Omit<ProfileInput, 'id'>>): ConfigFile {
  const existing = requireProfile(config, id);
  const merged = { ...existing, ...patch, id };
  if (patch.baseUrl !== undefined) merged.baseUrl = normalizedBaseUrl(patch.baseUrl);
  if (patch.name !== undefined) refuseUnfitName(patch.name);
  refuseUnfitModelIds(patch, modelIdsOf(existing));
  const profile = parseProfile(merged);
  if (patch.fallbacks !== undefined) checkFallbacks(config, profile);
  return { ...config, profiles: config.profiles.map((candidate) => (candidate.id === id ? profile : candidate)) };
}

/**
 * Refuses while client tokens are pinned to the profile: silently moving a tool to another
 * gateway (and another key) is worse than asking the user to decide.
 */
export function removeProfile(config: ConfigFile, id: string): ConfigFile {
  requireProfile(config, id);
  const pinned = config.clientTokens.filter((token) => token.profileId === id).map((token) => token.name);
  if (pinned.length > 0) {
    throw new ConfigEditError(
      `profile "${id}" is used by client token(s) ${pinned.map((name) => `"${name}"`).join(', ')}: revoke them or pin them to another profile first`,
    );
  }
  return {
    ...config,
    profiles: config.profiles.filter((profile) => profile.id !== id),
    activeProfileId: config.activeProfileId === id ? null : config.activeProfileId,
  };
}

export function setActiveProfile(config: ConfigFile, id: string | null): ConfigFile {
  if (id !== null) requireProfile(config, id);
  return { ...config, activeProfileId: id };
}

export function addClientToken(config: ConfigFile, record: ClientTokenRecord): ConfigFile {
  // A key or token typed where the name goes (`token create sk-…`): a name is kept in airlock.json and the keychain's
  // account name, listed, shown in the window and written as the client of every request it makes.
  if (holdsKey(record.name)) {
    throw new ConfigEditError(
      `the token name given looks like a key or token, and was not saved: name the token after its tool (such as "claude-code")`,
    );
  }
  if (config.clientTokens.some((token) => token.name === record.name)) {
    throw new ConfigEditError(`a client token named "${record.name}" already exists: revoke it first or pick another name`);
  }
  if (record.profileId !== null) requireProfile(config, record.profileId);
  return { ...config, clientTokens: [...config.clientTokens, record] };
}

export function removeClientToken(config: ConfigFile, name: string): ConfigFile {
  if (!config.clientTokens.some((token) => token.name === name)) {
    // The token itself pasted as the name to revoke (`token revoke alk_…`) was repeated, on a terminal or a CI log.
    if (looksLikeKey(name)) {
      throw new ConfigEditError(
        (command) =>
          `no client token with the name given: it looks like a key or token, so it is not repeated here. A token is revoked by its name (see \`${command('token list')}\`)`,
      );
    }
    throw new ConfigEditError((command) => `no client token named "${name}" (see \`${command('token list')}\`)`);
  }
  return { ...config, clientTokens: config.clientTokens.filter((token) => token.name !== name) };
}

export function updateSettings(config: ConfigFile, patch: Partial<Settings>): ConfigFile {
  return { ...config, settings: { ...config.settings, ...patch } };
}

/** Tells a running proxy in another process that a key in the keychain changed. */
export function bumpKeysRevision(config: ConfigFile): ConfigFile {
  return { ...config, keysRevision: config.keysRevision + 1 };
}

export function requireProfile(config: ConfigFile, id: string): Profile {
  const profile = config.profiles.find((candidate) => candidate.id === id);
  if (!profile) {
    const known = config.profiles.map((candidate) => candidate.id);
    if (looksLikeKey(id))
      throw new ConfigEditError(`no profile with the id given (profiles: ${known.join(', ') || 'none yet'}): ${KEY_AS_ID}`);
    throw new ConfigEditError((command) =>
      known.length > 0
        ? `no profile with id "${id}" (profiles: ${known.join(', ')})`
        : `no profile with id "${id}": add one with \`${command('profile add <id> --base-url <url>')}\``,
    );
  }
  return profile;
}

/**
 * A gateway key typed where a profile id goes (`key set sk-…`, thinking the key goes there) was repeated in the
 * refusal, on a terminal or a CI log. Judged by the shapes the log masks as secrets; no profile id has them.
 */
export function looksLikeKey(text: string): boolean {
  return redactSecrets(text) !== text || OWN_TOKEN.test(text);
}

/**
 * Airlock's own client and control tokens: base64url, whose `_` and `-` can cut a token into runs too short for the
 * random-run shape, so a pasted token was repeated or not by chance (a test's random token, one run in several).
 */
const OWN_TOKEN = new RegExp(`(?:${CLIENT_TOKEN_PREFIX}|${CONTROL_TOKEN_PREFIX})[A-Za-z0-9_-]{16,}`);

/**
 * Whether a name or id given to be kept holds a key: a word with the secret shapes that is also key-long (24 characters
 * or more) and has a digit, as every provider's generated key has. Narrower than looksLikeKey, which only decides what
 * a refusal may repeat: a name such as "sk-telecom-production" or "Bearer production" has the shapes and is a name.
 */
export function holdsKey(text: string): boolean {
  return text.split(/\s+/).some((word) => word.length >= MIN_KEY_WORD_LENGTH && /\d/.test(word) && looksLikeKey(word));
}

/** Shorter than any provider key seen (DeepSeek's sk- and 32 hex digits is 35; OpenAI's and Anthropic's are longer). */
const MIN_KEY_WORD_LENGTH = 24;

/**
 * The key pasted into the name field beside the key field: the name is kept in airlock.json, listed by the CLI and
 * sent to the window in clear, as a pool key's label would be (keyPoolEdits.ts refuses those). A line break, U+2028 or
 * an escape character in it broke the CLI's one-line-a-profile listing or drove the terminal showing it.
 */
function refuseUnfitName(name: string): void {
  if (holdsKey(name)) {
    throw new ConfigEditError(
      'the name looks like a gateway key, and was not saved: give the profile a plain name (such as "work"); the key goes in the key field',
    );
  }
  const found = lineBreakingCharacter(name);
  if (found !== null) throw new ConfigEditError(`the name is one line of visible characters, and this one holds ${found}: type it again`);
}

/**
 * A gateway key pasted where a model id goes (`connect <tool> --model sk-…`, a fallback's, an alias's or a price's
 * model): kept, it sat in airlock.json or the tool's own config file in clear, and was listed and sent to the gateway as
 * the model. Never repeated. A control character or U+2028 in the id broke the file it was written into (aider's YAML).
 */
function refuseUnfitModelId(model: string, field: string, kept: ReadonlySet<string>): void {
  if (kept.has(model)) return;
  if (holdsKey(model)) throw new ConfigEditError(`${field}: ${KEY_AS_MODEL}`);
  const found = lineBreakingCharacter(model);
  if (found !== null) throw new ConfigEditError(`${field}: ${modelIdCharacterRefusal(found)}`);
}

export const KEY_AS_MODEL =
  'the model id looks like a gateway key, so it was not saved and is not repeated here: give the id the gateway lists (such as "gpt-4o"); the key goes in the key field';

type ModelIdFields = Partial<Pick<ProfileInput, 'modelAliases' | 'modelRoutes' | 'prices' | 'fallbacks'>>;

/**
 * Every model id the given fields hold, and a fallback's profile id (refused before the schema or a refusal could repeat a
 * key in it). Ids the profile already keeps pass, as existing profile ids still resolve: the window and the CLI send a
 * whole table, and one id saved before ids were checked (vLLM's id of a model started from a cache snapshot, a commit
 * hash in its path) refused every later edit of the table.
 */
function refuseUnfitModelIds(fields: ModelIdFields, kept: ReadonlySet<string> = new Set()): void {
  for (const [alias, target] of Object.entries(fields.modelAliases ?? {})) {
    refuseUnfitModelId(alias, 'modelAliases', kept);
    refuseUnfitModelId(target, 'modelAliases', kept);
  }
  for (const route of fields.modelRoutes ?? []) {
    refuseUnfitModelId(route.pattern, 'modelRoutes', kept);
    refuseUnfitModelId(route.target, 'modelRoutes', kept);
  }
  for (const price of fields.prices ?? []) refuseUnfitModelId(price.model, 'prices', kept);
  for (const entry of fields.fallbacks ?? []) {
    if (entry.model !== undefined) refuseUnfitModelId(entry.model, 'fallbacks', kept);
    if (entry.profileId !== undefined && looksLikeKey(entry.profileId))
      throw new ConfigEditError(`fallbacks: no profile with the id given: ${KEY_AS_ID}`);
  }
}

/** The model ids a profile keeps in the fields refuseUnfitModelIds checks. */
function modelIdsOf(profile: Profile): Set<string> {
  return new Set([
    ...Object.entries(profile.modelAliases).flat(),
    ...profile.modelRoutes.flatMap((route) => [route.pattern, route.target]),
    ...profile.prices.map((price) => price.model),
    ...profile.fallbacks.flatMap((entry) => (entry.model === undefined ? [] : [entry.model])),
  ]);
}

/** Why a key-shaped id is not repeated, and where a key goes instead. */
export const KEY_AS_ID =
  'it looks like a gateway key, so it is not repeated here. A key is read from stdin or a hidden prompt, never from the command line (whose history keeps what is typed there)';

function normalizedBaseUrl(input: string): string {
  const result = normalizeBaseUrl(input);
  if (!result.ok) throw new ConfigEditError(result.reason);
  return result.baseUrl;
}

/** A fallback back to the profile itself, or to a profile that does not exist, is refused when saved. */
function checkFallbacks(config: ConfigFile, profile: Profile): void {
  const ids = [profile.id, ...config.profiles.map((candidate) => candidate.id)];
  const problems = fallbackProblems(profile, ids);
  if (problems.length > 0) throw new ConfigEditError(problems.join(' '));
}

function parseProfile(input: unknown): Profile {
  const result = profileSchema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new ConfigEditError(issue ? `${issue.path.join('.') || 'profile'}: ${issue.message}` : 'invalid profile');
}
