import { Command, type ErrorOptions, type HelpContext } from 'commander';
import { CLI_COMMAND } from '../../contracts/cli.ts';
import { redactSecrets } from '../../core/redact.ts';

/**
 * Exit codes: 1 for a command that failed, 2 for a command line that cannot be run, as POSIX
 * utilities (grep, diff) and argument parsers (Python's argparse, Rust's clap) split them, so a
 * script can tell a typo in it from a failure worth retrying.
 */
export const FAILED_EXIT_CODE = 1;
const USAGE_EXIT_CODE = 2;

/** The error code of a command's own failure (withCliErrors); every other error is commander's, about the command line. */
export const FAILED_CODE = 'airlock.failed';

/**
 * A value on the command line that cannot be used, found by the command itself (a --format, a
 * --since, a number out of range): a mistake in the command line, so exit code 2 as for those
 * commander finds (a --port that is not a port, a tool that does not exist), never 1.
 */
export class CommandLineError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CommandLineError';
  }
}

/**
 * Commander's message as one line: "error: unknown command 'x'\n(Did you mean y?)" -> "unknown command 'x' (did you mean y?)".
 * It quotes the word it refused, and a key typed in its place (`airlock sk-…`, `connect sk-…`) was repeated: masked by shape.
 */
function usageText(message: string): string {
  return redactSecrets(message)
    .replace(/^error: /, '')
    .replace(/\s*\n\(Did you mean (.*)\?\)/, ' (did you mean $1?)')
    .replace(/\s*\n\s*/g, ' ')
    .replace(/\.$/, '');
}

/**
 * The `airlock` command and each of its subcommands: a mistake in the command line is one line on
 * stderr (with a near spelling, when there is one, and where the usage is) and exit code 2. The
 * whole help after it, commander's way, pushed that line out of sight.
 */
export class AirlockCommand extends Command {
  override createCommand(name?: string): AirlockCommand {
    return new AirlockCommand(name);
  }

  override error(message: string, errorOptions?: ErrorOptions): never {
    if (errorOptions?.code === FAILED_CODE) return super.error(message, errorOptions);
    return super.error(`airlock: ${usageText(message)}; see \`${this.#shownName()} --help\``, {
      ...errorOptions,
      exitCode: USAGE_EXIT_CODE,
    });
  }

  /** A group named without one of its commands (`airlock key`): its list is the answer, on stderr, as for a mistake. */
  override help(context?: HelpContext | ((text: string) => string)): never {
    if (typeof context !== 'object' || !context.error) return super.help(context as HelpContext);
    this.outputHelp(context);
    return super.error(`airlock: \`${this.#shownName()}\` needs one of the commands above`, {
      code: 'airlock.missingCommand',
      exitCode: USAGE_EXIT_CODE,
    });
  }

  /** As the user runs it: `npx airlock export requests`. */
  #shownName(): string {
    const names: string[] = [];
    for (let command: Command | null = this; command?.parent; command = command.parent) names.unshift(command.name());
    return [CLI_COMMAND, ...names].join(' ');
  }
}
