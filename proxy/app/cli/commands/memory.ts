import type { Command } from 'commander';
import { memoryLimitsSchema, type MemoryLimits } from '../../../contracts/config.ts';
import { updateSettings } from '../../profiles/configMutations.ts';
import { CommandLineError } from '../airlockCommand.ts';
import { optionNumber } from './numberOption.ts';
import { configStoreFor, defaultCliDeps, withCliErrors, writeLine, type CliDeps } from './cliContext.ts';

const OPTION_OF_FIELD: Record<keyof MemoryLimits, string> = {
  logBacklogMiB: '--log-backlog-mib',
  bodyCaptureKiB: '--body-capture-kib',
};

export function describeMemoryLimits(limits: MemoryLimits): string {
  return (
    `The request log keeps each body up to ${limits.bodyCaptureKiB} KiB, and holds at most ${limits.logBacklogMiB} MiB of work it has not written: ` +
    `past half of that, bodies are not kept; past all of it, requests are counted in spend summaries until it catches up.`
  );
}

/** Commander hands options over as text; the schema says what a valid value is, and the error names the option. */
function parsedLimits(current: MemoryLimits, options: { logBacklogMib?: string; bodyCaptureKib?: string }): MemoryLimits {
  const result = memoryLimitsSchema.safeParse({
    logBacklogMiB:
      options.logBacklogMib === undefined ? current.logBacklogMiB : optionNumber(OPTION_OF_FIELD.logBacklogMiB, options.logBacklogMib),
    bodyCaptureKiB:
      options.bodyCaptureKib === undefined ? current.bodyCaptureKiB : optionNumber(OPTION_OF_FIELD.bodyCaptureKiB, options.bodyCaptureKib),
  });
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const option = OPTION_OF_FIELD[issue?.path[0] as keyof MemoryLimits] ?? 'memory limit';
  throw new CommandLineError(`${option}: ${issue?.message ?? 'invalid'}`);
}

/** `airlock memory`: shows or sets what the request log may hold in memory; a running proxy applies a change to its next request. */
export function registerMemoryCommand(program: Command, deps: CliDeps = defaultCliDeps()): void {
  program
    .command('memory')
    .description('show or set what the request log may hold in memory (bodies kept per request, work not yet written)')
    .option(
      '--log-backlog-mib <n>',
      'MiB of work the log may hold before it stops keeping bodies (at half) and rows (at all of it), 8 to 1024',
    )
    .option('--body-capture-kib <n>', 'KiB of each request and answer body the log keeps, 16 to 16384')
    .action((options: { logBacklogMib?: string; bodyCaptureKib?: string }, command: Command) =>
      withCliErrors(command, deps, async () => {
        const store = configStoreFor(command, deps);
        if (options.logBacklogMib === undefined && options.bodyCaptureKib === undefined) {
          const problem = store.problem();
          if (problem) throw new Error(problem);
          writeLine(deps.stdout, describeMemoryLimits(store.snapshot().settings.memoryLimits));
          return;
        }
        const config = await store.update((current) =>
          updateSettings(current, { memoryLimits: parsedLimits(current.settings.memoryLimits, options) }),
        );
        writeLine(deps.stdout, describeMemoryLimits(config.settings.memoryLimits));
      }),
    );
}
