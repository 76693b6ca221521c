import type { Command } from 'commander';
import type { FallbackEntry } from '../../../contracts/profile.ts';
import { ConfigEditError, requireProfile, updateProfile } from '../../profiles/configMutations.ts';
import { CommandLineError } from '../airlockCommand.ts';
import { configStoreFor, hintFor, withCliErrors, writeLine, type CliDeps } from './cliContext.ts';

/**
 * `airlock profile fallback list|add|remove|clear <id>`: the profile's ordered fallback list, each
 * step another model on it (`--model`) or another profile (`--profile`, optionally `--model`).
 */
export function registerFallbackCommands(profile: Command, deps: CliDeps): void {
  const fallback = profile
    .command('fallback')
    .description('what a request tries next when the gateway fails before answering (429, 5xx, timeouts)');

  fallback
    .command('list <id>')
    .description("show a profile's fallbacks in the order they are tried")
    .action((id: string, _options: unknown, command: Command) =>
      withCliErrors(command, deps, async () => {
        const store = configStoreFor(command, deps);
        const problem = store.problem();
        if (problem) throw new Error(problem);
        const { fallbacks } = requireProfile(store.snapshot(), id);
        if (fallbacks.length === 0) {
          writeLine(
            deps.stdout,
            `Profile ${id} has no fallbacks: add one with \`${hintFor(command, deps)(`profile fallback add ${id} --model <model>`)}\`.`,
          );
          return;
        }
        for (const [index, entry] of fallbacks.entries()) writeLine(deps.stdout, `${index + 1}. ${stepText(entry)}`);
      }),
    );

  fallback
    .command('add <id>')
    .description('append a fallback: another model on this profile, or another profile (and its model)')
    .option('--profile <profileId>', 'another profile: its base URL, key, prices, budget and aliases are used')
    .option('--model <model>', "the model to ask for (default: the one the client named, through the profile's aliases)")
    .action((id: string, options: { profile?: string; model?: string }, command: Command) =>
      withCliErrors(command, deps, async () => {
        if (options.profile === undefined && options.model === undefined) {
          throw new CommandLineError('name the fallback with --model <model>, --profile <profileId>, or both');
        }
        const entry: FallbackEntry = {
          ...(options.profile === undefined ? {} : { profileId: options.profile }),
          ...(options.model === undefined ? {} : { model: options.model }),
        };
        const config = await configStoreFor(command, deps).update((current) =>
          updateProfile(current, id, { fallbacks: [...requireProfile(current, id).fallbacks, entry] }),
        );
        const count = requireProfile(config, id).fallbacks.length;
        writeLine(deps.stdout, `Profile ${id} falls back to ${stepText(entry)} (fallback ${count}).`);
      }),
    );

  fallback
    .command('remove <id> <position>')
    .description('remove the fallback at this position (as `list` numbers them)')
    .action((id: string, position: string, _options: unknown, command: Command) =>
      withCliErrors(command, deps, async () => {
        if (!/^\d+$/.test(position.trim()))
          throw new CommandLineError(
            `position "${position}": give the number \`${hintFor(command, deps)(`profile fallback list ${id}`)}\` shows`,
          );
        const index = Number(position) - 1;
        await configStoreFor(command, deps).update((current) => {
          const { fallbacks } = requireProfile(current, id);
          if (!Number.isInteger(index) || index < 0 || index >= fallbacks.length) {
            throw new ConfigEditError(
              (named) =>
                `profile ${id} has no fallback ${position}: positions are 1 to ${fallbacks.length} (see \`${named(`profile fallback list ${id}`)}\`)`,
            );
          }
          return updateProfile(current, id, { fallbacks: fallbacks.filter((_entry, at) => at !== index) });
        });
        writeLine(deps.stdout, `Removed fallback ${position} of profile ${id}.`);
      }),
    );

  fallback
    .command('clear <id>')
    .description('remove every fallback of a profile')
    .action((id: string, _options: unknown, command: Command) =>
      withCliErrors(command, deps, async () => {
        await configStoreFor(command, deps).update((current) => updateProfile(current, id, { fallbacks: [] }));
        writeLine(deps.stdout, `Profile ${id} has no fallbacks now.`);
      }),
    );
}

function stepText(entry: FallbackEntry): string {
  if (entry.profileId === undefined) return `model ${entry.model}`;
  return entry.model === undefined ? `profile ${entry.profileId}` : `profile ${entry.profileId}, model ${entry.model}`;
}
