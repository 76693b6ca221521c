import type { Command } from 'commander';
import { burstLimitsSchema, type BurstLimits } from '../../../contracts/config.ts';
import { updateSettings } from '../../profiles/configMutations.ts';
import { CommandLineError } from '../airlockCommand.ts';
import { optionNumber } from './numberOption.ts';
import { configStoreFor, defaultCliDeps, withCliErrors, writeLine, type CliDeps } from './cliContext.ts';

function describeLimits(limits: BurstLimits): string {
  return `A client is paused past ${limits.maxRequestsPerMinute} requests or ${limits.maxCreditsPerMinute} credits within a minute.`;
}

/** Commander hands options over as text; the schema says what a valid limit is. */
function parsedLimits(current: BurstLimits, options: { requestsPerMinute?: string; creditsPerMinute?: string }): BurstLimits {
  const result = burstLimitsSchema.safeParse({
    maxRequestsPerMinute:
      options.requestsPerMinute === undefined
        ? current.maxRequestsPerMinute
        : optionNumber('--requests-per-minute', options.requestsPerMinute),
    maxCreditsPerMinute:
      options.creditsPerMinute === undefined ? current.maxCreditsPerMinute : optionNumber('--credits-per-minute', options.creditsPerMinute),
  });
  if (!result.success) {
    const field = result.error.issues[0]?.path[0] === 'maxRequestsPerMinute' ? '--requests-per-minute' : '--credits-per-minute';
    throw new CommandLineError(`${field}: ${result.error.issues[0]?.message ?? 'invalid'}`);
  }
  return result.data;
}

/** `airlock limits`: shows or sets the burst guard's limits per client token; a running proxy applies them to its next request. */
export function registerLimitsCommand(program: Command, deps: CliDeps = defaultCliDeps()): void {
  program
    .command('limits')
    .description("show or set the burst guard's limits per client token (a client past them is paused until resumed)")
    .option('--requests-per-minute <n>', 'requests a client may send within a minute')
    .option('--credits-per-minute <n>', 'credits a client may spend within a minute')
    .action((options: { requestsPerMinute?: string; creditsPerMinute?: string }, command: Command) =>
      withCliErrors(command, deps, async () => {
        const store = configStoreFor(command, deps);
        if (options.requestsPerMinute === undefined && options.creditsPerMinute === undefined) {
          const problem = store.problem();
          if (problem) throw new Error(problem);
          writeLine(deps.stdout, describeLimits(store.snapshot().settings.burstLimits));
          return;
        }
        const config = await store.update((current) =>
          updateSettings(current, { burstLimits: parsedLimits(current.settings.burstLimits, options) }),
        );
        writeLine(deps.stdout, describeLimits(config.settings.burstLimits));
      }),
    );
}
