import type { Command } from 'commander';
import { defaultCliDeps, withCliErrors, writeLine, type CliDeps } from './commands/cliContext.ts';
import { callControlApi, controlReachFor } from './commands/controlApi.ts';
import type { PauseResponse, StatusResponse } from '../../contracts/status.ts';
import { portOption } from './commands/portOption.ts';

/**
 * `airlock resume [client]`: lifts the burst guard's pause on one client in the running proxy, or
 * without a client Airlock's own pause (`airlock serve` has no tray to do it), through its control
 * API (both pauses live in that process's memory).
 */
export function registerResumeCommand(program: Command, deps: CliDeps = defaultCliDeps()): void {
  program
    .command('resume [client]')
    .description('let a client the burst guard paused send requests again; without a client, resume a paused Airlock')
    .addOption(portOption('the port the running Airlock listens on'))
    .action((clientName: string | undefined, options: { port: number }, command: Command) =>
      withCliErrors(command, deps, async () => {
        if (clientName === undefined) {
          const reach = controlReachFor(command, deps);
          const call = { port: options.port, instead: 'Resume Airlock in the window instead.', timeoutMs: 5_000 };
          const { paused } = await callControlApi<StatusResponse>(reach, { ...call, method: 'GET', path: '/status' });
          if (paused) await callControlApi<PauseResponse>(reach, { ...call, method: 'POST', path: '/resume' });
          writeLine(deps.stdout, paused ? 'Airlock forwards requests again.' : 'Airlock was not paused.');
          return;
        }
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
