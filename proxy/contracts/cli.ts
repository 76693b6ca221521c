import { DEFAULT_PORT } from './defaults.ts';

/**
 * The command every hint tells the user to run. `npm install` puts no `airlock` on the PATH; in
 * the project directory npx runs the package's own bin (on the project's Node 24).
 */
export const CLI_COMMAND = 'npx airlock';

/** One word for a POSIX shell: as it is when nothing in it is special, else single-quoted. */
export function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * A command to suggest, carrying `--data-dir` when the run has one other than the default: pasted
 * without it, the command would act on the default data directory instead.
 */
export function suggestedCommand(args: string, dataDirArgument: string | null): string {
  return dataDirArgument === null ? `${CLI_COMMAND} ${args}` : `${CLI_COMMAND} ${args} --data-dir ${shellWord(dataDirArgument)}`;
}

/** A suggested command, as one Airlock names it: `args` is the command after `npx airlock`. */
export type NamedCommand = (args: string) => string;

/**
 * How a running Airlock names itself in the commands its messages suggest (refusals to clients, the
 * control API's errors, start notes): a command pasted without its `--data-dir` or `--port` acts on
 * another Airlock, or on none.
 */
export interface CommandHint {
  /** A command on the data directory: profiles, keys, tokens, settings, the log. */
  command: NamedCommand;
  /** A command that reaches the running proxy (resume, window, replay): with its `--port` as well. */
  runningCommand: NamedCommand;
}

export interface CommandHintOptions {
  /** Read at each use: a run learns its port once it listens. */
  port?: () => number;
  /**
   * Applied to each command as it is named: a data directory's path may hold a key, and the commands
   * reach clients (unauthenticated ones too) and the log.
   */
  mask?: (text: string) => string;
}

export function commandHint(dataDirArgument: string | null, options: CommandHintOptions = {}): CommandHint {
  const port = options.port ?? (() => DEFAULT_PORT);
  const mask = options.mask ?? ((text: string) => text);
  return {
    command: (args) => mask(suggestedCommand(args, dataDirArgument)),
    runningCommand: (args) => {
      const listening = port();
      return mask(suggestedCommand(listening === DEFAULT_PORT ? args : `${args} --port ${listening}`, dataDirArgument));
    },
  };
}

/** The default data directory and port: the commands as they are. */
export const PLAIN_HINT: CommandHint = commandHint(null);
