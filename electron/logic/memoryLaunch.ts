/**
 * Two things that give the app's memory back after a burst can only be had when the main process
 * starts (see DESIGN.md, "Memory comes back after a burst"): V8's `gc`, which the idle-time
 * reclaimer needs (`--js-flags=--expose-gc` on Electron's command line: `appendSwitch('js-flags')`
 * at run time reaches only renderers, and Electron's main-process V8 flags cannot be changed once
 * it runs), and glibc's malloc settings (`MALLOC_ARENA_MAX`, `MALLOC_MMAP_THRESHOLD_`), read when the
 * process starts. So the app starts itself once more with them when any is missing, as `airlock
 * serve` does with execve.
 */
import { SERVE_V8_FLAGS } from '../../proxy/app/cli/v8Flags.ts';

/** With the V8 flags `airlock serve` runs with (proxy/app/cli/v8Flags.ts: no memory reducer), for the same reason. */
export const EXPOSE_GC_SWITCH = `--js-flags=${['--expose-gc', ...SERVE_V8_FLAGS].join(' ')}`;
/** Set on the relaunched process: it never relaunches again, whatever it finds. */
export const RELAUNCHED_ENV = 'AIRLOCK_RELAUNCHED_FOR_MEMORY';

export interface MemoryLaunchFacts {
  /** process.argv: the executable, then (unpackaged) the app path and the user's arguments. */
  argv: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  /** Whether `globalThis.gc` is there (the flag was on the command line). */
  gcExposed: boolean;
  /** glibc's version on Linux, undefined elsewhere (musl, macOS, Windows): only glibc reads the malloc settings. */
  glibcVersion: string | undefined;
  /** glibc's malloc settings to start with (proxy/app/cli/glibcMalloc.ts), each unless the user set it. */
  mallocEnv: Readonly<Record<string, string>>;
  /** An instance opened at login must start hidden again (the relaunched one is not "opened at login"). */
  openedAtLogin: boolean;
  hiddenArg: string;
}

export interface MemoryRelaunch {
  /** process.argv.slice(1) for app.relaunch, with what was missing added. */
  args: string[];
  /** Added to the environment the new instance inherits. */
  env: Record<string, string>;
}

/** How to start again, or null when nothing is missing or this instance already is the relaunched one. */
export function planMemoryRelaunch(facts: MemoryLaunchFacts): MemoryRelaunch | null {
  if (facts.env[RELAUNCHED_ENV] !== undefined) return null;
  const missingMallocEnv =
    facts.glibcVersion === undefined ? [] : Object.entries(facts.mallocEnv).filter(([name]) => facts.env[name] === undefined);
  if (facts.gcExposed && missingMallocEnv.length === 0) return null;
  const args = facts.argv.slice(1);
  if (!facts.gcExposed) args.unshift(EXPOSE_GC_SWITCH);
  if (facts.openedAtLogin && !args.includes(facts.hiddenArg)) args.push(facts.hiddenArg);
  return { args, env: { [RELAUNCHED_ENV]: '1', ...Object.fromEntries(missingMallocEnv) } };
}
