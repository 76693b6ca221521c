import type { Command } from 'commander';
import { CONTROL_API_PREFIX, type ApiErrorBody } from '../../contracts/api.ts';
import { CONTROL_TOKEN_ACCOUNT } from '../../contracts/secretStore.ts';
import { DEFAULT_PORT } from '../../contracts/defaults.ts';
import { defaultCliDeps, withCliErrors, writeLine, type CliDeps } from './commands/cliContext.ts';
import { CLI_COMMAND } from '../../contracts/cli.ts';

/**
 * `airlock resume <client>`: lifts the burst guard's pause on one client in the running proxy,
 * through its control API (the pause lives in that process's memory).
 */
export function registerResumeCommand(program: Command, deps: CliDeps = defaultCliDeps()): void {
  program
    .command('resume <client>')
    .description('let a client the burst guard paused send requests again')
    .option('--port <port>', 'the port the running Airlock listens on', String(DEFAULT_PORT))
    .action((clientName: string, options: { port: string }, command: Command) =>
      withCliErrors(command, async () => {
        const controlToken = await deps.secrets().get(CONTROL_TOKEN_ACCOUNT);
        if (!controlToken)
          throw new Error('no control token in the keychain: is Airlock set up on this machine? Resume the client in the window instead.');
        const url = `http://127.0.0.1:${Number(options.port)}${CONTROL_API_PREFIX}/clients/${encodeURIComponent(clientName)}/resume`;
        let response: Response;
        try {
          response = await fetch(url, {
            method: 'POST',
            headers: { authorization: `Bearer ${controlToken}` },
            signal: AbortSignal.timeout(5_000),
          });
        } catch {
          throw new Error(`Airlock is not running on port ${options.port} (start it with \`${CLI_COMMAND} serve\` or the desktop app).`);
        }
        if (!response.ok) throw new Error(await refusalMessage(response));
        const { resumed } = (await response.json()) as { resumed: boolean };
        writeLine(deps.stdout, resumed ? `Client "${clientName}" may send requests again.` : `Client "${clientName}" was not paused.`);
      }),
    );
}

/** The control API's own explanation (an unknown client lists the known ones), else the status. */
async function refusalMessage(response: Response): Promise<string> {
  const body = (await response.json().catch(() => null)) as Partial<ApiErrorBody> | null;
  return body?.error?.message ?? `Airlock refused the resume (HTTP ${response.status}).`;
}
