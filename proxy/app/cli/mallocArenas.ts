/**
 * `airlock serve` runs for days and its memory should come back after a burst. glibc gives each
 * thread that allocates under contention its own malloc arena (up to 8 per core), and memory freed
 * inside an arena stays with the process when anything above it is still in use. Airlock has a
 * dozen threads (log, WAL checkpoints, libuv and V8 workers): after the bench's c=50 burst, with
 * the heaps already collected, RSS stayed 50 MB above idle; with two arenas it came back within
 * 7% of idle, and idle itself was 13 MB lower. The limit is read only at start, so the command
 * starts itself again in place (execve, same pid) with it set. A value the user set is kept.
 */
export const MALLOC_ARENA_ENV = 'MALLOC_ARENA_MAX';
export const MALLOC_ARENAS = '2';

/** The environment to start again with, or null: not glibc, already set, or no execve. */
export function arenaLimitedEnv(env: NodeJS.ProcessEnv, glibcVersion: string | undefined): NodeJS.ProcessEnv | null {
  if (glibcVersion === undefined || env[MALLOC_ARENA_ENV] !== undefined) return null;
  return { ...env, [MALLOC_ARENA_ENV]: MALLOC_ARENAS };
}

/** The C library's glibc version, or undefined when it is not glibc (or cannot be told). */
export function runtimeGlibcVersion(): string | undefined {
  try {
    const report = process.report.getReport() as { header?: { glibcVersionRuntime?: string } };
    return report.header?.glibcVersionRuntime;
  } catch {
    return undefined;
  }
}

/** Starts this process again with the arena limit when it lacks it; returns only when it does not. */
export function restartWithArenaLimit(): void {
  if (typeof process.execve !== 'function') return;
  const env = arenaLimitedEnv(process.env, runtimeGlibcVersion());
  if (env === null) return;
  process.execve(process.execPath, [process.execPath, ...process.execArgv, ...process.argv.slice(1)], env);
}
