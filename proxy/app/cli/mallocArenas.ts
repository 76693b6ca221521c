/**
 * `airlock serve` runs for days and its memory should come back after a burst. glibc gives each
 * thread that allocates under contention its own malloc arena (up to 8 per core), and memory freed
 * inside an arena stays with the process when anything above it is still in use. Airlock has a
 * dozen threads (log, WAL checkpoints, libuv and V8 workers): after the bench's c=50 burst, with
 * the heaps already collected, RSS stayed 50 MB above idle; with two arenas it came back within
 * 7% of idle, and idle itself was 13 MB lower. The limit is read only at start, so the command
 * starts itself again in place (execve, same pid) with it set. A value the user set is kept.
 */
import { missingV8Flags } from './v8Flags.ts';

export const MALLOC_ARENA_ENV = 'MALLOC_ARENA_MAX';
export const MALLOC_ARENAS = '2';

/** The environment to start again with, or null: not glibc, already set, or no execve. */
export function arenaLimitedEnv(env: NodeJS.ProcessEnv, glibcVersion: string | undefined): NodeJS.ProcessEnv | null {
  if (glibcVersion === undefined || env[MALLOC_ARENA_ENV] !== undefined) return null;
  return { ...env, [MALLOC_ARENA_ENV]: MALLOC_ARENAS };
}

export interface TunedStart {
  env: NodeJS.ProcessEnv;
  execArgv: string[];
}

/**
 * How to start `airlock serve` again so it has the arena limit and SERVE_V8_FLAGS, or null when it
 * already has what applies here (so the restart happens at most once).
 */
export function tunedStart(env: NodeJS.ProcessEnv, execArgv: readonly string[], glibcVersion: string | undefined): TunedStart | null {
  const limitedEnv = arenaLimitedEnv(env, glibcVersion);
  const missingFlags = missingV8Flags(execArgv);
  if (limitedEnv === null && missingFlags.length === 0) return null;
  return { env: limitedEnv ?? env, execArgv: [...execArgv, ...missingFlags] };
}

/** Starts this process again in place when it lacks the arena limit or the V8 flags; returns only when it needs neither. */
export function restartTuned(): void {
  if (typeof process.execve !== 'function') return;
  const report = process.report.getReport() as { header?: { glibcVersionRuntime?: string } };
  const start = tunedStart(process.env, process.execArgv, report.header?.glibcVersionRuntime);
  if (start === null) return;
  process.execve(process.execPath, [process.execPath, ...start.execArgv, ...process.argv.slice(1)], start.env);
}
