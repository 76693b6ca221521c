/**
 * `airlock serve` runs for days and its memory should come back after a burst. glibc gives each
 * thread that allocates under contention its own malloc arena (up to 8 per core), and memory freed
 * inside an arena stays with the process when anything above it is still in use. Airlock has a
 * dozen threads (log, WAL checkpoints, libuv and V8 workers): after the bench's c=50 burst, with
 * the heaps already collected, RSS stayed 50 MB above idle; with two arenas it came back within
 * 7% of idle, and idle itself was 13 MB lower. The limit is read only at start, so the command
 * starts itself again in place (execve, same pid) with it set. A value the user set is kept.
 */
import { compileCachedEnv, userCompileCacheDir } from './compileCache.ts';
import { missingV8Flags } from './v8Flags.ts';

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

export interface TunedStart {
  env: NodeJS.ProcessEnv;
  execArgv: string[];
}

/**
 * How to start `airlock serve` again so it has the arena limit, SERVE_V8_FLAGS and (given a
 * directory) the compile cache (compileCache.ts), or null when it already has what applies here
 * (so the restart happens at most once).
 */
export function tunedStart(
  env: NodeJS.ProcessEnv,
  execArgv: readonly string[],
  glibcVersion: string | undefined,
  cacheDir: string | null = null,
): TunedStart | null {
  const limitedEnv = arenaLimitedEnv(env, glibcVersion);
  const cachedEnv = cacheDir === null ? null : compileCachedEnv(limitedEnv ?? env, cacheDir);
  const missingFlags = missingV8Flags(execArgv);
  if (limitedEnv === null && cachedEnv === null && missingFlags.length === 0) return null;
  return { env: cachedEnv ?? limitedEnv ?? env, execArgv: [...execArgv, ...missingFlags] };
}

/** Starts this process again in place when it lacks the arena limit, the V8 flags or the compile cache; returns only when it needs none. */
export function restartTuned(): void {
  if (typeof process.execve !== 'function') return;
  const start = tunedStart(process.env, process.execArgv, runtimeGlibcVersion(), userCompileCacheDir());
  if (start === null) return;
  process.execve(process.execPath, [process.execPath, ...start.execArgv, ...process.argv.slice(1)], start.env);
}
