import { DEFAULT_PORT } from './defaults.ts';

/**
 * The command every hint tells the user to run. `npm install` puts no `airlock` on the PATH; in
 * the project directory npx runs the package's own bin (on the project's Node 24).
 */
export const CLI_COMMAND = 'npx airlock';

/** The shell a suggested command is pasted in: cmd.exe or PowerShell on Windows, a POSIX shell elsewhere. */
export type ShellFlavor = 'posix' | 'windows';

/** The shell of a platform (Node's process.platform). */
export function shellOf(platform: string): ShellFlavor {
  return platform === 'win32' ? 'windows' : 'posix';
}

/**
 * One word for the platform's shell, as it is when nothing in it is special. Quoted otherwise: for
 * a POSIX shell in single quotes; on Windows in double quotes, as cmd.exe gives single quotes no
 * meaning (PowerShell reads both), and a Windows path cannot hold a double quote.
 */
export function shellWord(text: string, shell: ShellFlavor = 'posix'): string {
  if (shell === 'windows') return /^[\w@+=:,./\\-]+$/.test(text) ? text : `"${text}"`;
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * A command to suggest, carrying `--data-dir` when the run has one other than the default: pasted
 * without it, the command would act on the default data directory instead.
 */
export function suggestedCommand(args: string, dataDirArgument: string | null, shell: ShellFlavor = 'posix'): string {
  return dataDirArgument === null ? `${CLI_COMMAND} ${args}` : `${CLI_COMMAND} ${args} --data-dir ${shellWord(dataDirArgument, shell)}`;
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
  /** One word of a command's arguments (a client's name), quoted for the shell the commands are pasted in. */
  word(text: string): string;
}

export interface CommandHintOptions {
  /** Read at each use: a run learns its port once it listens. */
  port?: () => number;
  /**
   * Applied to each command as it is named: a data directory's path may hold a key, and the commands
   * reach clients (unauthenticated ones too) and the log.
   */
  mask?: (text: string) => string;
  /** Where the commands are pasted (shellOf(process.platform)); a POSIX shell unless given. */
  shell?: ShellFlavor;
}

export function commandHint(dataDirArgument: string | null, options: CommandHintOptions = {}): CommandHint {
  const port = options.port ?? (() => DEFAULT_PORT);
  const mask = options.mask ?? ((text: string) => text);
  return {
    command: (args) => mask(suggestedCommand(args, dataDirArgument, options.shell)),
    runningCommand: (args) => {
      const listening = port();
      return mask(suggestedCommand(listening === DEFAULT_PORT ? args : `${args} --port ${listening}`, dataDirArgument, options.shell));
    },
    word: (text) => shellWord(text, options.shell),
  };
}

/** The default data directory and port: the commands as they are. */
export const PLAIN_HINT: CommandHint = commandHint(null);
