import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

/** The `airlock` command as npm installs it (package.json "bin"). */
const AIRLOCK_BIN = fileURLToPath(new URL('../../proxy/app/cli/bin.js', import.meta.url));

interface AirlockExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface AirlockProcess {
  child: ChildProcessWithoutNullStreams;
  /** What the process wrote to stdout and stderr so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves once stdout or stderr has carried text matching `pattern`. */
  printed(pattern: RegExp): Promise<void>;
  exited: Promise<AirlockExit>;
}

/** `airlock <args>` in its own process, with stdout and stderr as pipes, as a script or CI runs it. */
export function spawnAirlock(args: readonly string[], env: NodeJS.ProcessEnv = process.env): AirlockProcess {
  return watched(spawn(process.execPath, [AIRLOCK_BIN, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] }));
}

/**
 * `airlock <args>` started in the background by a shell that then waits for it, as `npm run` and
 * `npx` start a script (npm, then `sh -c`): `child` is the shell, which prints Airlock's process id
 * first. The pipes stay open while Airlock runs, so `exited` resolves when the shell and Airlock
 * have both ended, whichever ends first.
 */
export function spawnAirlockUnderShell(args: readonly string[], env: NodeJS.ProcessEnv): AirlockProcess & { airlockPid: Promise<number> } {
  const script = '"$0" "$@" & echo "airlock pid $!"; wait';
  const shell = watched(spawn('sh', ['-c', script, process.execPath, AIRLOCK_BIN, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] }));
  const airlockPid = shell.printed(/airlock pid \d+/).then(() => Number(/airlock pid (\d+)/.exec(shell.stdout())?.[1]));
  return { ...shell, airlockPid };
}

function watched(child: ChildProcessWithoutNullStreams): AirlockProcess {
  child.stdin.end();
  let stdout = '';
  let stderr = '';
  const watchers: { pattern: RegExp; resolve: () => void }[] = [];
  const check = (): void => {
    for (const watcher of [...watchers]) {
      if (!watcher.pattern.test(stdout) && !watcher.pattern.test(stderr)) continue;
      watchers.splice(watchers.indexOf(watcher), 1);
      watcher.resolve();
    }
  };
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    check();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    check();
  });
  const exited = once(child, 'close').then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
    stdout,
    stderr,
  }));
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    printed: (pattern) =>
      new Promise<void>((resolve, reject) => {
        watchers.push({ pattern, resolve });
        check();
        void exited.then((exit) => reject(new Error(`airlock exited (${exit.code ?? exit.signal}) before printing ${pattern}: ${stderr}`)));
      }),
    exited,
  };
}

/** Runs `airlock <args>` to its end. */
export function runAirlockBin(args: readonly string[], env?: NodeJS.ProcessEnv): Promise<AirlockExit> {
  return spawnAirlock(args, env).exited;
}
