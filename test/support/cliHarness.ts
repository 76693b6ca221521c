import { PassThrough, type Readable } from 'node:stream';
import { type Command, CommanderError } from 'commander';
import type { CliDeps } from '../../proxy/app/cli/commands/cliContext.ts';
import { createProgram } from '../../proxy/app/cli/program.ts';
import type { SecretStore } from '../../proxy/contracts/secretStore.ts';

export interface CliRun {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/**
 * Runs one `airlock ...` command line in-process against a data directory and a secret store,
 * with stdin piped from `input` (so `key set` reads it as a script would pipe it), or `input` itself.
 */
export async function runAirlock(
  dataDir: string,
  secrets: SecretStore,
  args: string[],
  input: string | Readable = '',
  homeDir = '/nonexistent-home',
  env: NodeJS.ProcessEnv = {},
): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const sink = (append: (text: string) => void): PassThrough => {
    const stream = new PassThrough();
    stream.on('data', (chunk: Buffer) => append(chunk.toString()));
    return stream;
  };
  const stdin = typeof input === 'string' ? new PassThrough().end(input) : input;
  const deps: CliDeps = {
    env,
    platform: 'linux',
    homedir: homeDir,
    cwd: '/',
    secrets: () => secrets,
    stdin,
    stdout: sink((text) => (stdout += text)),
    stderr: sink((text) => (stderr += text)),
    nowMs: () => 1_700_000_000_000,
  };
  // The real command line, each command throwing instead of exiting and writing to the captured streams.
  const program = createProgram(deps);
  const capture = (command: Command): void => {
    command.exitOverride().configureOutput({ writeOut: (text) => (stdout += text), writeErr: (text) => (stderr += text) });
    for (const subcommand of command.commands) capture(subcommand);
  };
  capture(program);
  let exitCode = 0;
  try {
    await program.parseAsync(['--data-dir', dataDir, ...args], { from: 'user' });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    exitCode = error.exitCode;
  }
  // PassThrough delivers 'data' on a later tick.
  await new Promise((resolve) => setImmediate(resolve));
  return { stdout, stderr, exitCode };
}
