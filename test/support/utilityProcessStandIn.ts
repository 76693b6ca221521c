import { type ChildProcess, fork } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { constants } from 'node:os';
import { basename } from 'node:path';
import type { Readable } from 'node:stream';

/** The ForkOptions of Electron's utilityProcess.fork that the stand-in honours. */
interface UtilityForkOptions {
  env?: NodeJS.ProcessEnv;
  execArgv?: string[];
  cwd?: string;
  stdio?: 'pipe' | 'ignore' | 'inherit' | ('pipe' | 'ignore' | 'inherit')[];
  serviceName?: string;
}

const CHILD_PRELOAD = new URL('./utilityProcessChild.ts', import.meta.url).href;

/**
 * Electron's UtilityProcess as its docs describe it (api/utility-process), over a real Node child
 * process: `pid` set on 'spawn' and unset after 'exit'; postMessage to the child's
 * process.parentPort (utilityProcessChild.ts) and 'message' back from its postMessage; 'exit'
 * with the exit code; kill() by SIGTERM. stdin is never the child's; stdout and stderr are streams
 * only when piped. The structured clone of Electron's messages is the IPC channel's 'advanced'
 * serialization.
 */
class UtilityProcessStandIn extends EventEmitter {
  pid: number | undefined = undefined;
  stdout: Readable | null;
  stderr: Readable | null;
  readonly #child: ChildProcess;
  readonly #record: (event: string) => void;
  readonly #name: string;

  constructor(modulePath: string, args: string[], options: UtilityForkOptions, record: (event: string) => void) {
    super();
    this.#record = record;
    this.#name = options.serviceName ?? 'Node Utility Process';
    // Electron's default is 'inherit'; stdin is always 'ignore'.
    const stdio = options.stdio ?? 'inherit';
    const [stdout, stderr] = typeof stdio === 'string' ? [stdio, stdio] : [stdio[1] ?? 'inherit', stdio[2] ?? 'inherit'];
    this.#child = fork(modulePath, args, {
      env: options.env ?? process.env,
      cwd: options.cwd,
      execArgv: ['--import', CHILD_PRELOAD, ...(options.execArgv ?? [])],
      stdio: ['ignore', stdout, stderr, 'ipc'],
      serialization: 'advanced',
    });
    this.stdout = this.#child.stdout;
    this.stderr = this.#child.stderr;
    this.#child.on('spawn', () => {
      this.pid = this.#child.pid;
      record(`utility:spawn ${this.#name} ${basename(modulePath)} ${this.pid}`);
      this.emit('spawn');
    });
    this.#child.on('message', (message) => this.emit('message', message));
    this.#child.on('exit', (code, signal) => {
      this.pid = undefined;
      this.stdout = null;
      this.stderr = null;
      record(`utility:exit ${this.#name}`);
      // waitpid's status: a signal's number where the process did not exit by itself.
      this.emit('exit', code ?? (signal ? constants.signals[signal] : 0));
    });
  }

  postMessage(message: unknown): void {
    this.#child.send(message as object);
  }

  kill(): boolean {
    this.#record(`utility:kill ${this.#name}`);
    return this.#child.kill('SIGTERM');
  }
}

/** `utilityProcess` of the electron module; `record` hears each start and end, `isReady` says whether the app is ready. */
export function utilityProcessStandIn(record: (event: string) => void, isReady: () => boolean) {
  return {
    fork(modulePath: string, args: string[] = [], options: UtilityForkOptions = {}): UtilityProcessStandIn {
      // As Electron: "utilityProcess.fork can only be called after the ready event has been emitted on App".
      if (!isReady()) throw new Error('utilityProcess.fork can only be called after the ready event');
      return new UtilityProcessStandIn(modulePath, args, options, record);
    },
  };
}
