import type { Command } from 'commander';
import { normalizeBaseUrl } from '../../../core/baseUrl.ts';
import { maxRequestBodyMibSchema, profileSchema, type Profile } from '../../../contracts/profile.ts';
import {
  addProfile,
  KEY_AS_ID,
  holdsKey,
  removeProfile,
  requireProfile,
  setActiveProfile,
  updateProfile,
} from '../../profiles/configMutations.ts';
import { describeKeyStatus, keyLastFour } from '../../secrets/keyCache.ts';
import { gatewayKeyAccount, KeychainUnavailableError, type SecretStore } from '../../../contracts/secretStore.ts';
import { keyAccountsOf } from '../../../contracts/keyPool.ts';
import { UnscopedKeyError } from '../../secrets/dataDirSecrets.ts';
import { CommandLineError } from '../airlockCommand.ts';
import { configStoreFor, hintFor, secretsFor, defaultCliDeps, withCliErrors, writeLine, type CliDeps } from './cliContext.ts';
import { CLI_COMMAND } from '../../../contracts/cli.ts';
import { registerFallbackCommands } from './profileFallback.ts';
import { optionNumber } from './numberOption.ts';

const MAX_BODY_OPTION = '--max-body-mib <MiB>';
const MAX_BODY_HELP = 'largest request body to accept, in MiB (default 64); larger ones get a 413';

/** Commander hands options over as text; the profile schema says what a valid limit is. */
function parsedBodyLimit(text: string): number {
  const result = maxRequestBodyMibSchema.safeParse(optionNumber('--max-body-mib', text));
  if (!result.success) throw new CommandLineError(`--max-body-mib: ${result.error.issues[0]?.message ?? 'invalid'}`);
  return result.data;
}

/** A base URL that can never be a gateway's is a mistake in the command line, told before anything is written. */
function checkedBaseUrl(text: string): string {
  const normalized = normalizeBaseUrl(text);
  if (!normalized.ok) throw new CommandLineError(`--base-url: ${normalized.reason}`);
  return text;
}

/** An id the profile schema refuses is a typo on the command line, as a token name is for `token create`. */
function checkedProfileId(id: string): string {
  // Before the schema: a key of lowercase letters and digits passes it (sk- and 32 hex digits, as DeepSeek's: github.com/panzhenhai520/webmedic/issues/3).
  if (holdsKey(id)) throw new CommandLineError(`the id given is no profile id: ${KEY_AS_ID}`);
  const result = profileSchema.shape.id.safeParse(id);
  if (!result.success) throw new CommandLineError(`id "${id}": ${result.error.issues[0]?.message ?? 'invalid'}`);
  return id;
}

/** `airlock profile add|list|set|remove|use`. */
export function registerProfileCommands(program: Command, deps: CliDeps = defaultCliDeps()): void {
  const profile = program
    .command('profile')
    .description(
      "gateway profiles (base URL, body limit, fallbacks; aliases, routes, timeouts, prices and budgets on the window's " +
        `Profiles screen); keys are set with \`${CLI_COMMAND} key set\``,
    );

  profile
    .command('add <id>')
    .description('add a gateway profile')
    .option('--name <name>', 'display name (default: the id)')
    .requiredOption('--base-url <url>', 'gateway address, e.g. https://host/v1')
    .option('--activate', 'make it the active profile')
    .option(MAX_BODY_OPTION, MAX_BODY_HELP)
    .action((id: string, options: { name?: string; baseUrl: string; activate?: boolean; maxBodyMib?: string }, command: Command) =>
      withCliErrors(command, deps, async () => {
        const store = configStoreFor(command, deps);
        const bodyLimit = options.maxBodyMib === undefined ? {} : { maxRequestBodyMiB: parsedBodyLimit(options.maxBodyMib) };
        const config = await store.update((current) =>
          addProfile(
            current,
            { id: checkedProfileId(id), name: options.name ?? id, baseUrl: checkedBaseUrl(options.baseUrl), ...bodyLimit },
            { activate: options.activate === true },
          ),
        );
        const added = config.profiles.find((candidate) => candidate.id === id);
        const normalized = normalizeBaseUrl(options.baseUrl);
        if (normalized.ok && normalized.warning) writeLine(deps.stderr, `warning: ${normalized.warning}`);
        writeLine(deps.stdout, `Added profile ${id} (${added?.baseUrl})${config.activeProfileId === id ? ', now active' : ''}.`);
        const heldKey = await keyHeldFor(id, secretsFor(command, deps));
        const heldTail = heldKey === null ? null : keyLastFour(heldKey);
        // The default data directory's keys are kept by profile id alone (every directory's were, before): a key already there goes to this profile's gateway.
        writeLine(
          deps.stderr,
          heldKey === null
            ? `Next: store its gateway key with \`${hintFor(command, deps)(`key set ${id}`)}\`.`
            : `warning: the OS keychain already holds a gateway key for a profile "${id}" (${heldTail ? `ends in ${heldTail}` : 'too short to show its end'}): ` +
                `one removed earlier, or the profile "${id}" of another data directory. This profile sends it to ${added?.baseUrl}. ` +
                `If it is not this gateway's key, replace it: \`${hintFor(command, deps)(`key set ${id}`)}\`.`,
        );
      }),
    );

  profile
    .command('list')
    .description('list profiles with the active marker and key status')
    .action((_options: unknown, command: Command) =>
      withCliErrors(command, deps, async () => {
        const store = configStoreFor(command, deps);
        const problem = store.problem();
        if (problem) throw new Error(problem);
        const config = store.snapshot();
        if (config.profiles.length === 0) {
          writeLine(deps.stdout, `No profiles yet: add one with \`${hintFor(command, deps)('profile add <id> --base-url <url>')}\`.`);
          return;
        }
        const statuses = await keyStatuses(config.profiles, secretsFor(command, deps), hintFor(command, deps));
        if (statuses.problem) writeLine(deps.stderr, `warning: ${statuses.problem}`);
        for (const entry of config.profiles) {
          const marker = entry.id === config.activeProfileId ? '*' : ' ';
          writeLine(
            deps.stdout,
            `${marker} ${entry.id}  ${entry.name}  ${entry.baseUrl}  key: ${statuses.byId.get(entry.id)}  body limit: ${entry.maxRequestBodyMiB} MiB`,
          );
        }
      }),
    );

  profile
    .command('set <id>')
    .description("change a profile's name, base URL or body limit; its key stays (a running proxy applies them at its next request)")
    .option('--name <name>', 'display name')
    .option('--base-url <url>', 'gateway address, e.g. https://host/v1')
    .option(MAX_BODY_OPTION, MAX_BODY_HELP)
    .action((id: string, options: { name?: string; baseUrl?: string; maxBodyMib?: string }, command: Command) =>
      withCliErrors(command, deps, async () => {
        if (options.name === undefined && options.baseUrl === undefined && options.maxBodyMib === undefined)
          throw new CommandLineError('give --name, --base-url or --max-body-mib');
        const patch = {
          ...(options.name === undefined ? {} : { name: options.name }),
          ...(options.baseUrl === undefined ? {} : { baseUrl: checkedBaseUrl(options.baseUrl) }),
          ...(options.maxBodyMib === undefined ? {} : { maxRequestBodyMiB: parsedBodyLimit(options.maxBodyMib) }),
        };
        const config = await configStoreFor(command, deps).update((current) => updateProfile(current, id, patch));
        const updated = requireProfile(config, id);
        if (options.baseUrl !== undefined) {
          const normalized = normalizeBaseUrl(options.baseUrl);
          if (normalized.ok && normalized.warning) writeLine(deps.stderr, `warning: ${normalized.warning}`);
        }
        const renamed = [
          ...(options.name === undefined ? [] : [`name "${updated.name}"`]),
          ...(options.baseUrl === undefined ? [] : [`base URL ${updated.baseUrl}`]),
        ];
        if (renamed.length > 0) writeLine(deps.stdout, `Profile ${id}: ${renamed.join(', ')}.`);
        if (options.maxBodyMib !== undefined)
          writeLine(deps.stdout, `Profile ${id} accepts request bodies up to ${updated.maxRequestBodyMiB} MiB.`);
      }),
    );

  profile
    .command('remove <id>')
    .description('remove a profile and its key')
    .action((id: string, _options: unknown, command: Command) =>
      withCliErrors(command, deps, async () => {
        const store = configStoreFor(command, deps);
        let removed: Profile | undefined;
        const config = await store.update((current) => {
          // As it is in the file under the lock: a pool key the window added meanwhile is deleted too.
          removed = current.profiles.find((candidate) => candidate.id === id);
          return removeProfile(current, id);
        });
        try {
          // Every key of a pool too: none stays behind in the keychain.
          for (const account of removed ? keyAccountsOf(removed) : [gatewayKeyAccount(id)]) await secretsFor(command, deps).delete(account);
        } catch (error) {
          if (!(error instanceof KeychainUnavailableError)) throw error;
          // Keys are kept by profile id: one left there goes to the gateway of the next profile with this id.
          writeLine(
            deps.stderr,
            `warning: no OS keychain (Secret Service) is available (${error.detail}), so its key, if it has one, stays there: a profile added later as "${id}" would use it.`,
          );
        }
        writeLine(
          deps.stdout,
          `Removed profile ${id}.${config.activeProfileId === null ? ` No profile is active now: choose one with \`${hintFor(command, deps)('profile use <id>')}\`.` : ''}`,
        );
      }),
    );

  profile
    .command('use <id>')
    .description('make a profile the active one (a running proxy switches at the next request)')
    .action((id: string, _options: unknown, command: Command) =>
      withCliErrors(command, deps, async () => {
        await configStoreFor(command, deps).update((current) => setActiveProfile(current, id));
        writeLine(deps.stdout, `Active profile: ${id}.`);
      }),
    );

  registerFallbackCommands(profile, deps);
}

/** The key the keychain holds for the profile id, or null (also without a keychain, which the next step reports). */
async function keyHeldFor(profileId: string, secrets: SecretStore): Promise<string | null> {
  try {
    return await secrets.get(gatewayKeyAccount(profileId));
  } catch (error) {
    if (!(error instanceof KeychainUnavailableError)) throw error;
    return null;
  }
}

/** "set, ends in abcd" / "not set" per profile; the keys themselves are dropped at once. */
async function keyStatuses(
  profiles: readonly Profile[],
  secrets: SecretStore,
  hint: (args: string) => string,
): Promise<{ byId: Map<string, string>; problem: string | null }> {
  const byId = new Map<string, string>();
  /** A key held only where every data directory shares it: not used here, and the way to set this one's is said. */
  let unscoped: string | null = null;
  try {
    for (const entry of profiles) {
      if (entry.keyPool !== undefined) {
        const held = (await Promise.all(keyAccountsOf(entry).map((account) => secrets.get(account)))).filter((key) => key !== null);
        byId.set(entry.id, `pool of ${entry.keyPool.length} (${held.length} in the keychain; \`${hint(`key list ${entry.id}`)}\`)`);
        continue;
      }
      try {
        const key = await secrets.get(gatewayKeyAccount(entry.id));
        byId.set(entry.id, describeKeyStatus(key ? { set: true, lastFour: keyLastFour(key) } : { set: false, lastFour: null }));
      } catch (error) {
        if (!(error instanceof UnscopedKeyError)) throw error;
        byId.set(entry.id, 'not set for this data directory');
        unscoped ??= error.message;
      }
    }
    return { byId, problem: unscoped };
  } catch (error) {
    if (!(error instanceof KeychainUnavailableError)) throw error;
    for (const entry of profiles) byId.set(entry.id, 'unknown (no keychain)');
    return { byId, problem: error.message };
  }
}
