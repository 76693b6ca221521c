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

const MALLOC_ARENA_ENV = 'MALLOC_ARENA_MAX';
export const MALLOC_ARENAS = '2';

/**
 * glibc serves a block of this size or more with its own mmap, returned to the system when freed.
 * Its default starts here but rises to the size of each such block freed (up to 32 MiB): after one
 * large body, later blocks up to that size come from the arenas, and what they leave free there
 * stays resident while anything above it is in use. Set, the threshold stays fixed (the trim
 * threshold too). Measured 60 s after a burst (DESIGN.md, "Performance and memory"): the bench's
 * large bodies 217-283 -> 168-197 MB, its c=50 load 142-147 -> 128-131 MB.
 */
const MALLOC_MMAP_THRESHOLD_ENV = 'MALLOC_MMAP_THRESHOLD_';
export const MALLOC_MMAP_THRESHOLD_BYTES = String(128 * 1024);

/** What `airlock serve` sets for glibc's malloc (each only when the user has not set it). */
export const GLIBC_MALLOC_ENV: Readonly<Record<string, string>> = {
  [MALLOC_ARENA_ENV]: MALLOC_ARENAS,
  [MALLOC_MMAP_THRESHOLD_ENV]: MALLOC_MMAP_THRESHOLD_BYTES,
};

/** The environment to start again with, or null: not glibc, or every variable of GLIBC_MALLOC_ENV already set. */
export function glibcTunedEnv(env: NodeJS.ProcessEnv, glibcVersion: string | undefined): NodeJS.ProcessEnv | null {
  if (glibcVersion === undefined) return null;
  const missing = Object.entries(GLIBC_MALLOC_ENV).filter(([name]) => env[name] === undefined);
  if (missing.length === 0) return null;
  return { ...env, ...Object.fromEntries(missing) };
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
  const limitedEnv = glibcTunedEnv(env, glibcVersion);
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
