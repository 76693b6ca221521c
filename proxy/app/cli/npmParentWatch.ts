/**
 * `npm run serve` and `npx airlock serve` run Airlock under a `sh -c` shell that npm starts. A SIGTERM
 * sent to npm (a script, a process manager, `kill <pid>`) reaches that shell, which ends without
 * passing it on (npm/cli#5776), and npm ends with it: Airlock was left serving, orphaned, with the
 * port and the data directory held and no terminal to stop it from. Started by npm, Airlock stops as
 * on SIGTERM once the process that started it is gone: its parent process id is no longer the one it
 * had at start (it is init's or a subreaper's now).
 */
/** How often the parent is looked at: a stop a second late costs nothing, and the check is one system call. */
export const PARENT_CHECK_INTERVAL_MS = 1_000;

export interface NpmParentWatchOptions {
  env: NodeJS.ProcessEnv;
  /**
   * The parent when the command began, read before Airlock starts: npm killed while Airlock was
   * starting has already gone by the time the watch begins, and a watch that began there would
   * take init for the parent that started it.
   */
  parentPidAtStart: number;
  /** This process's parent process id now (`process.ppid` reads it afresh each time). */
  parentPid: () => number;
  /** Called once, when the parent that started this process is gone. */
  onParentGone: () => void;
  intervalMs?: number;
}

/** True when npm ran this process: `npm run` sets npm_lifecycle_event, `npx`/`npm exec` npm_command as well. */
export function startedByNpm(env: NodeJS.ProcessEnv): boolean {
  return env.npm_lifecycle_event !== undefined || env.npm_command !== undefined;
}

/** Watches the parent when npm started this process; returns the function that stops watching. */
export function watchNpmParent(options: NpmParentWatchOptions): () => void {
  if (!startedByNpm(options.env)) return () => undefined;
  const gone = (): boolean => options.parentPid() !== options.parentPidAtStart;
  if (gone()) {
    options.onParentGone();
    return () => undefined;
  }
  const timer = setInterval(() => {
    if (!gone()) return;
    clearInterval(timer);
    options.onParentGone();
  }, options.intervalMs ?? PARENT_CHECK_INTERVAL_MS);
  // The watch alone never keeps the process alive.
  timer.unref();
  return () => clearInterval(timer);
}
