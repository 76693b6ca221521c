import { homedir } from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';
import { dataDirArgument, resolveDataDir } from '../../dataDir.ts';
import { CommandLineError, FAILED_CODE, FAILED_EXIT_CODE } from '../airlockCommand.ts';
import { openConfigStore, type ConfigStore } from '../../profiles/configStore.ts';
import { ConfigEditError } from '../../profiles/configMutations.ts';
import { createKeychainHelperStore } from '../../secrets/keychainHelperStore.ts';
import { KEYCHAIN_ANSWER_WAIT_MS } from '../../secrets/boundedSecretStore.ts';
import { secretStoreForDataDir } from '../../secrets/dataDirSecrets.ts';
import type { SecretStore } from '../../../contracts/secretStore.ts';
import { terminalText } from '../../../core/terminalText.ts';
import { commandHint, shellOf, type CommandHint, type NamedCommand } from '../../../contracts/cli.ts';

/** What the profile, key and token commands touch; tests pass their own streams and stores. */
export interface CliDeps {
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  homedir: string;
  cwd: string;
  /** The keychain as this data directory sees it (its own accounts: secrets/dataDirSecrets.ts). */
  secrets: (dataDir: string) => SecretStore;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  /** Results a script may capture (a new token, a list). */
  stdout: NodeJS.WritableStream;
  /** Messages for the person at the terminal (prompts, notes, warnings). */
  stderr: NodeJS.WritableStream;
  nowMs: () => number;
}

export function defaultCliDeps(): CliDeps {
  let keychain: SecretStore | null = null;
  const host = { env: process.env, platform: process.platform, homedir: homedir() };
  return {
    ...host,
    cwd: process.cwd(),
    secrets: (dataDir) => {
      keychain ??= cliKeychain();
      return secretStoreForDataDir(keychain, dataDir, host);
    },
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    nowMs: Date.now,
  };
}

/** The OS keychain as the CLI's commands use it: in a helper process, so a call that hangs cannot keep the command from ending. */
export function cliKeychain(answerWaitMs: number = KEYCHAIN_ANSWER_WAIT_MS): SecretStore {
  return createKeychainHelperStore(answerWaitMs);
}

/** The data directory chosen by the global `--data-dir` option (else the default one). */
export function dataDirFor(command: Command, deps: CliDeps): string {
  const flag = command.optsWithGlobals<{ dataDir?: string }>().dataDir;
  return path.resolve(deps.cwd, resolveDataDir(deps.env, deps.platform, deps.homedir, flag));
}

/** How this run's hints name a command: with its `--data-dir` when that is not the default one. */
export function hintFor(command: Command, deps: CliDeps): NamedCommand {
  return commandHintFor(command, deps).command;
}

/** The same as a CommandHint, for texts shared with the running proxy; a `serve` it names takes the default port. */
export function commandHintFor(command: Command, deps: CliDeps): CommandHint {
  return commandHint(dataDirArgument(dataDirFor(command, deps), deps), { shell: shellOf(deps.platform) });
}

/** The keychain as the data directory chosen by the global `--data-dir` option sees it. */
export function secretsFor(command: Command, deps: CliDeps): SecretStore {
  return deps.secrets(dataDirFor(command, deps));
}

/** The config store of the data directory chosen by the global `--data-dir` option. */
export function configStoreFor(command: Command, deps: CliDeps): ConfigStore {
  return openConfigStore(dataDirFor(command, deps), { command: hintFor(command, deps) });
}

/**
 * Runs a command's body so that any failure is one clear line on stderr and exit code 1 (2 for a
 * CommandLineError, with where the usage is): the messages are written for the user, and a stack
 * trace would only hide them. A config edit's error names its commands with this run's --data-dir.
 */
export async function withCliErrors(command: Command, deps: CliDeps, body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (error) {
    if (error instanceof CommandLineError) command.error(error.message);
    const message =
      error instanceof ConfigEditError ? error.messageFor(hintFor(command, deps)) : error instanceof Error ? error.message : String(error);
    command.error(`airlock: ${message.replace(/\s*\n\s*/g, ' ')}`, { exitCode: FAILED_EXIT_CODE, code: FAILED_CODE });
  }
}

/** One line of the CLI's output: texts from the log (prompts, answers, errors) never act on the terminal. */
export function writeLine(stream: NodeJS.WritableStream, line: string): void {
  stream.write(`${terminalText(line)}\n`);
}
