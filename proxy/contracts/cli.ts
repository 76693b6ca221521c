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
