import { InvalidArgumentError, Option } from 'commander';
import packageJson from '../../../package.json' with { type: 'json' };
import { AirlockCommand } from './airlockCommand.ts';
import { defaultCliDeps, type CliDeps } from './commands/cliContext.ts';
import { registerConnectCommand } from './commands/connect.ts';
import { registerExportCommands } from './commands/export.ts';
import { registerKeyCommands } from './commands/key.ts';
import { registerLimitsCommand } from './commands/limits.ts';
import { registerMemoryCommand } from './commands/memory.ts';
import { registerProfileCommands } from './commands/profile.ts';
import { registerSessionsCommand } from './commands/sessions.ts';
import { registerReplayCommand } from './commands/replay.ts';
import { registerRequestCommand } from './commands/request.ts';
import { registerTokenCommands } from './commands/token.ts';
import { registerWindowCommand } from './commands/window.ts';
import { registerResumeCommand } from './resume.ts';
import { registerServeCommand } from './serve.ts';

/**
 * An empty --data-dir is most often a script's unset variable (`--data-dir "$DIR"`): taken as no
 * option, the command would act on the user's own profiles and log instead.
 */
function nonEmptyDirectory(text: string): string {
  if (text.trim() === '') throw new InvalidArgumentError('It is empty: give a directory, or leave the option out for the default one.');
  return text;
}

/** The whole `airlock` command line; proxy/app/cli/main.ts parses process.argv with it, tests their own. */
export function createProgram(deps: CliDeps = defaultCliDeps()): AirlockCommand {
  const program = new AirlockCommand('airlock')
    .description('Your model gateway key stays in the OS keychain; your tools talk to a proxy on 127.0.0.1.')
    .version(packageJson.version, '-V, --version', 'print the version of Airlock')
    .addOption(
      new Option(
        '--data-dir <dir>',
        'where profiles and the request log live (default: the app data directory, or AIRLOCK_DATA_DIR)',
      ).argParser(nonEmptyDirectory),
    )
    .addHelpText('after', '\nExit codes: 0 done, 1 failed, 2 a mistake in the command line.');
  for (const register of [
    registerServeCommand,
    registerWindowCommand,
    registerProfileCommands,
    registerKeyCommands,
    registerTokenCommands,
    registerResumeCommand,
    registerLimitsCommand,
    registerMemoryCommand,
    registerConnectCommand,
    registerExportCommands,
    registerSessionsCommand,
    registerReplayCommand,
    registerRequestCommand,
  ]) {
    register(program, deps);
  }
  return program;
}
