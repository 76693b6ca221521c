import type { Command } from 'commander';
import { defaultCliDeps, withCliErrors, writeLine, type CliDeps } from './commands/cliContext.ts';
import { callControlApi, controlReachFor } from './commands/controlApi.ts';
import { portOption } from './commands/portOption.ts';

/**
 * `airlock resume <client>`: lifts the burst guard's pause on one client in the running proxy,
 * through its control API (the pause lives in that process's memory).
 */
export function registerResumeCommand(program: Command, deps: CliDeps = defaultCliDeps()): void {
  program
    .command('resume <client>')
    .description('let a client the burst guard paused send requests again')
    .addOption(portOption('the port the running Airlock listens on'))
    .action((clientName: string, options: { port: number }, command: Command) =>
      withCliErrors(command, async () => {
        const { resumed } = await callControlApi<{ resumed: boolean }>(controlReachFor(command, deps), {
          port: options.port,
          method: 'POST',
          path: `/clients/${encodeURIComponent(clientName)}/resume`,
          instead: 'Resume the client in the window instead.',
          timeoutMs: 5_000,
        });
        writeLine(deps.stdout, resumed ? `Client "${clientName}" may send requests again.` : `Client "${clientName}" was not paused.`);
      }),
    );
}
