import { PassThrough } from 'node:stream';
import { Command, CommanderError } from 'commander';
import type { CliDeps } from '../../proxy/cli/commands/cliContext.ts';
import { registerKeyCommands } from '../../proxy/cli/commands/key.ts';
import { registerLimitsCommand } from '../../proxy/cli/commands/limits.ts';
import { registerProfileCommands } from '../../proxy/cli/commands/profile.ts';
import { registerTokenCommands } from '../../proxy/cli/commands/token.ts';
import { registerResumeCommand } from '../../proxy/cli/resume.ts';
import type { SecretStore } from '../../proxy/secrets/secretStore.ts';

export interface CliRun {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/**
 * Runs one `airlock ...` command line in-process against a data directory and a secret store,
 * with stdin piped from `input` (so `key set` reads it as a script would pipe it).
 */
export async function runAirlock(dataDir: string, secrets: SecretStore, args: string[], input = ''): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const sink = (append: (text: string) => void): PassThrough => {
    const stream = new PassThrough();
    stream.on('data', (chunk: Buffer) => append(chunk.toString()));
    return stream;
  };
  const stdin = new PassThrough();
  stdin.end(input);
  const deps: CliDeps = {
    env: {},
    platform: 'linux',
    homedir: '/nonexistent-home',
    cwd: '/',
    secrets: () => secrets,
    stdin,
    stdout: sink((text) => (stdout += text)),
    stderr: sink((text) => (stderr += text)),
    nowMs: () => 1_700_000_000_000,
  };
  // Configured like proxy/cli/main.ts (help after a usage error) so the one-line failures are checked against it.
  const program = new Command('airlock').option('--data-dir <dir>').showHelpAfterError().exitOverride();
  program.configureOutput({ writeOut: (text) => (stdout += text), writeErr: (text) => (stderr += text) });
  for (const register of [registerProfileCommands, registerKeyCommands, registerTokenCommands, registerResumeCommand, registerLimitsCommand]) register(program, deps);
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
