import { InvalidArgumentError, Option } from 'commander';
import { DEFAULT_PORT } from '../../../contracts/defaults.ts';

function parsePort(text: string): number {
  // Digits only: Number() also takes "0x50", "8e3" and " 80 ".
  const port = /^\d{1,5}$/.test(text) ? Number(text) : Number.NaN;
  if (!(port >= 1 && port <= 65_535)) throw new InvalidArgumentError('Give a port from 1 to 65535.');
  return port;
}

/**
 * `--port <port>` of the commands that serve or reach Airlock, checked as the command line is read:
 * a mistyped port is a mistake in it (exit 2), not an Airlock that is not running there.
 */
export function portOption(description: string): Option {
  return new Option('--port <port>', description).default(DEFAULT_PORT).argParser(parsePort);
}
