import { spawn } from 'node:child_process';

export interface CliCommand {
  /** Executable spawned directly, never through a shell. */
  command: string;
  /** Arguments that come before the test's own (e.g. the script of an npm wrapper). */
  args: readonly string[];
}

export interface CliRun {
  cli: CliCommand;
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  /** When this settles, the CLI gets SIGINT as a terminal's Ctrl-C sends it: to its whole process group. */
  interruptWhen?: Promise<unknown>;
}

export interface CliResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** The CLI was still running at timeoutMs and was killed. */
  timedOut: boolean;
}

/** Signals a process group we created; it may already be gone. */
function killGroup(groupId: number, signal: NodeJS.Signals = 'SIGKILL'): void {
  try {
    process.kill(-groupId, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/**
 * Runs a CLI to completion with stdin closed and its output captured. It leads its own process
 * group, so the timeout (and the cleanup after a normal exit) kills it and whatever it started,
 * such as the shell commands an agent runs, by that group's id.
 */
export function runCli(run: CliRun): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(run.cli.command, [...run.cli.args, ...run.args], {
      cwd: run.cwd,
      env: run.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const groupId = child.pid;
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let timedOut = false;
    let exited = false;
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    const timer = setTimeout(() => {
      timedOut = !exited;
      if (groupId !== undefined) killGroup(groupId);
    }, run.timeoutMs);
    const interrupt = (): void => {
      if (!exited && groupId !== undefined) killGroup(groupId, 'SIGINT');
    };
    run.interruptWhen?.then(interrupt, interrupt);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('exit', () => {
      exited = true;
      if (groupId !== undefined) killGroup(groupId);
    });
    child.on('close', (exitCode, signal) => {
      clearTimeout(timer);
      resolve({
        exitCode,
        signal,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
        timedOut,
      });
    });
  });
}

/** The whole run as text, for assertion messages: a failing client explains itself. */
export function transcript(result: CliResult): string {
  return [
    `exit ${result.exitCode ?? 'none'}, signal ${result.signal ?? 'none'}${result.timedOut ? ', timed out' : ''}`,
    `--- stdout ---\n${result.stdout}`,
    `--- stderr ---\n${result.stderr}`,
  ].join('\n');
}
