import type { Command } from 'commander';
import { normalizeBaseUrl } from '../../core/baseUrl.ts';
import type { Profile } from '../../contracts/profile.ts';
import { addProfile, removeProfile, setActiveProfile } from '../../profiles/configMutations.ts';
import { describeKeyStatus, keyLastFour } from '../../secrets/keyCache.ts';
import { gatewayKeyAccount, KeychainUnavailableError, type SecretStore } from '../../secrets/secretStore.ts';
import { configStoreFor, defaultCliDeps, withCliErrors, writeLine, type CliDeps } from './cliContext.ts';
import { CLI_COMMAND } from '../../contracts/cli.ts';

/** `airlock profile add|list|remove|use`. */
export function registerProfileCommands(program: Command, deps: CliDeps = defaultCliDeps()): void {
  const profile = program.command('profile').description(`gateway profiles (base URL, aliases, timeouts); keys are set with \`${CLI_COMMAND} key set\``);

  profile
    .command('add <id>')
    .description('add a gateway profile')
    .requiredOption('--name <name>', 'display name')
    .requiredOption('--base-url <url>', 'gateway address, e.g. https://host/v1')
    .option('--activate', 'make it the active profile')
    .action((id: string, options: { name: string; baseUrl: string; activate?: boolean }, command: Command) =>
      withCliErrors(command, async () => {
        const store = configStoreFor(command, deps);
        const config = await store.update((current) =>
          addProfile(current, { id, name: options.name, baseUrl: options.baseUrl }, { activate: options.activate === true }),
        );
        const added = config.profiles.find((candidate) => candidate.id === id);
        const normalized = normalizeBaseUrl(options.baseUrl);
        if (normalized.ok && normalized.warning) writeLine(deps.stderr, `warning: ${normalized.warning}`);
        writeLine(deps.stdout, `Added profile ${id} (${added?.baseUrl})${config.activeProfileId === id ? ', now active' : ''}.`);
        writeLine(deps.stderr, `Next: store its gateway key with \`${CLI_COMMAND} key set ${id}\`.`);
      }),
    );

  profile
    .command('list')
    .description('list profiles with the active marker and key status')
    .action((_options: unknown, command: Command) =>
      withCliErrors(command, async () => {
        const store = configStoreFor(command, deps);
        const problem = store.problem();
        if (problem) throw new Error(problem);
        const config = store.snapshot();
        if (config.profiles.length === 0) {
          writeLine(deps.stdout, `No profiles yet: add one with \`${CLI_COMMAND} profile add <id> --name <name> --base-url <url>\`.`);
          return;
        }
        const statuses = await keyStatuses(config.profiles, deps.secrets());
        if (statuses.problem) writeLine(deps.stderr, `warning: ${statuses.problem}`);
        for (const entry of config.profiles) {
          const marker = entry.id === config.activeProfileId ? '*' : ' ';
          writeLine(deps.stdout, `${marker} ${entry.id}  ${entry.name}  ${entry.baseUrl}  key: ${statuses.byId.get(entry.id)}`);
        }
      }),
    );

  profile
    .command('remove <id>')
    .description('remove a profile and its key')
    .action((id: string, _options: unknown, command: Command) =>
      withCliErrors(command, async () => {
        const store = configStoreFor(command, deps);
        const config = await store.update((current) => removeProfile(current, id));
        try {
          await deps.secrets().delete(gatewayKeyAccount(id));
        } catch (error) {
          if (!(error instanceof KeychainUnavailableError)) throw error;
          writeLine(deps.stderr, `warning: its key could not be deleted from the keychain: ${error.message}`);
        }
        writeLine(deps.stdout, `Removed profile ${id}.${config.activeProfileId === null ? ` No profile is active now: choose one with \`${CLI_COMMAND} profile use <id>\`.` : ''}`);
      }),
    );

  profile
    .command('use <id>')
    .description('make a profile the active one (a running proxy switches at the next request)')
    .action((id: string, _options: unknown, command: Command) =>
      withCliErrors(command, async () => {
        await configStoreFor(command, deps).update((current) => setActiveProfile(current, id));
        writeLine(deps.stdout, `Active profile: ${id}.`);
      }),
    );
}

/** "set, ends in abcd" / "not set" per profile; the keys themselves are dropped at once. */
async function keyStatuses(profiles: readonly Profile[], secrets: SecretStore): Promise<{ byId: Map<string, string>; problem: string | null }> {
  const byId = new Map<string, string>();
  try {
    for (const entry of profiles) {
      const key = await secrets.get(gatewayKeyAccount(entry.id));
      byId.set(entry.id, describeKeyStatus(key ? { set: true, lastFour: keyLastFour(key) } : { set: false, lastFour: null }));
    }
    return { byId, problem: null };
  } catch (error) {
    if (!(error instanceof KeychainUnavailableError)) throw error;
    for (const entry of profiles) byId.set(entry.id, 'unknown (no keychain)');
    return { byId, problem: error.message };
  }
}
