import { Command } from 'commander';
import { registerKeyCommands } from './commands/key.ts';
import { registerLimitsCommand } from './commands/limits.ts';
import { registerProfileCommands } from './commands/profile.ts';
import { registerTokenCommands } from './commands/token.ts';
import { registerResumeCommand } from './resume.ts';
import { registerServeCommand } from './serve.ts';

const program = new Command('airlock')
  .description('Your model gateway key stays in the OS keychain; your tools talk to a proxy on 127.0.0.1.')
  .option('--data-dir <dir>', 'where profiles and the request log live (default: the app data directory, or AIRLOCK_DATA_DIR)')
  .showHelpAfterError();

registerServeCommand(program);
registerProfileCommands(program);
registerKeyCommands(program);
registerTokenCommands(program);
registerResumeCommand(program);
registerLimitsCommand(program);

await program.parseAsync(process.argv);
