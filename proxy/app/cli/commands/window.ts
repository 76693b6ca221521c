import type { Command } from 'commander';
import type { LoginLinkResponse } from '../../../contracts/controlApi.ts';
import { callControlApi, controlReachFor } from './controlApi.ts';
import { defaultCliDeps, hintFor, withCliErrors, writeLine, type CliDeps } from './cliContext.ts';
import { portOption } from './portOption.ts';

/**
 * `airlock window`: a fresh sign-in link from the running Airlock. The one `serve` prints works once,
 * for two minutes; without this, a browser that came later (or a second one) meant a restart,
 * which cuts every tool's open stream.
 */
export function registerWindowCommand(program: Command, deps: CliDeps = defaultCliDeps()): void {
  program
    .command('window')
    .description('print a fresh sign-in link for the window of the running Airlock (each link works once, for 2 minutes)')
    .addOption(portOption('the port the running Airlock listens on'))
    .action((options: { port: number }, command: Command) =>
      withCliErrors(command, deps, async () => {
        const { url } = await callControlApi<LoginLinkResponse>(controlReachFor(command, deps), {
          port: options.port,
          method: 'POST',
          path: '/login-links',
          instead: `Restart \`${hintFor(command, deps)('serve')}\`, which prints a new link.`,
          timeoutMs: 5_000,
        });
        writeLine(deps.stdout, url);
      }),
    );
}
