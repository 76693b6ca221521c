import type { Command } from 'commander';
import { generateToken, tokenRecord } from '../../../http/clientTokens.ts';
import { CLIENT_TOKEN_NAME_PATTERN } from '../../../contracts/config.ts';
import { addClientToken, removeClientToken } from '../../profiles/configMutations.ts';
import { clientTokenAccount, KeychainUnavailableError } from '../../../contracts/secretStore.ts';
import { CommandLineError } from '../airlockCommand.ts';
import { configStoreFor, hintFor, secretsFor, defaultCliDeps, withCliErrors, writeLine, type CliDeps } from './cliContext.ts';

/** `airlock token create|list|revoke`: the local tokens each tool uses to reach the proxy. */
export function registerTokenCommands(program: Command, deps: CliDeps = defaultCliDeps()): void {
  const token = program.command('token').description('client tokens: one per tool, revocable');

  token
    .command('create <name>')
    .description('create a client token and print it once (only the token goes to stdout)')
    .option('--profile <id>', 'pin the token to this profile instead of following the active one')
    .action((name: string, options: { profile?: string }, command: Command) =>
      withCliErrors(command, deps, async () => {
        if (!CLIENT_TOKEN_NAME_PATTERN.test(name)) {
          throw new CommandLineError(`token name "${name}": use letters, digits, ., - and _ (at most 64)`);
        }
        const store = configStoreFor(command, deps);
        const secret = generateToken();
        await store.update((config) => addClientToken(config, tokenRecord(name, secret, options.profile ?? null, deps.nowMs())));
        try {
          // Kept in the keychain too, so the window can show it again later.
          await secretsFor(command, deps).set(clientTokenAccount(name), secret);
        } catch (error) {
          if (!(error instanceof KeychainUnavailableError)) throw error;
          // The token works without the keychain (airlock.json holds its hash); only showing it again needs the keychain.
          writeLine(
            deps.stderr,
            `warning: no OS keychain (Secret Service) is available (${error.detail}), so the window cannot show this token again: copy it now. It works all the same.`,
          );
        }
        writeLine(deps.stdout, secret);
        const target = options.profile ? `pinned to profile ${options.profile}` : 'follows the active profile';
        writeLine(deps.stderr, `Client token "${name}" created (${target}). Use it as your tool's API key.`);
      }),
    );

  token
    .command('list')
    .description('list client tokens (names, profiles, last four characters)')
    .action((_options: unknown, command: Command) =>
      withCliErrors(command, deps, async () => {
        const store = configStoreFor(command, deps);
        const problem = store.problem();
        if (problem) throw new Error(problem);
        const { clientTokens } = store.snapshot();
        if (clientTokens.length === 0)
          writeLine(deps.stdout, `No client tokens yet: create one with \`${hintFor(command, deps)('token create <name>')}\`.`);
        for (const record of clientTokens) {
          const target = record.profileId ? `pinned to ${record.profileId}` : 'follows active profile';
          writeLine(
            deps.stdout,
            `${record.name}  ${target}  ends in ${record.lastFour}  created ${new Date(record.createdAtMs).toISOString()}`,
          );
        }
      }),
    );

  token
    .command('revoke <name>')
    .description('revoke a client token: the next request with it gets 401')
    .action((name: string, _options: unknown, command: Command) =>
      withCliErrors(command, deps, async () => {
        await configStoreFor(command, deps).update((config) => removeClientToken(config, name));
        try {
          await secretsFor(command, deps).delete(clientTokenAccount(name));
        } catch (error) {
          if (!(error instanceof KeychainUnavailableError)) throw error;
          writeLine(
            deps.stderr,
            `warning: no OS keychain (Secret Service) is available (${error.detail}), so its copy there, if any, was not deleted. The token no longer works all the same.`,
          );
        }
        writeLine(deps.stdout, `Revoked client token "${name}".`);
      }),
    );
}
