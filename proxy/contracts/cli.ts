/**
 * The command every hint tells the user to run. `npm install` puts no `airlock` on the PATH; in
 * the project directory npx runs the package's own bin (on the project's Node 24).
 */
export const CLI_COMMAND = 'npx airlock';
