/**
 * `airlock serve` runs from its TypeScript sources, and Node strips their types with a WebAssembly
 * copy of swc that every thread loading `.ts` files instantiates for itself: 18 MB of RSS for a bare
 * process, 6-10 MB more for each worker (the log thread, the tokenizer and translation threads).
 * Node's compile cache keeps the stripped output (and V8's code cache) on disk, so from the second
 * start on nothing is stripped and the stripper is never loaded: the bench's logged Airlock idles
 * at 97 MB instead of 113-116, and starts sooner. Workers take the cache from NODE_COMPILE_CACHE,
 * which is why it is set in the environment of the restart (glibcMalloc.ts) rather than by
 * `module.enableCompileCache()` after the modules are loaded. The directory is the user's own cache
 * directory, not the shared temporary one Node defaults to: what is in it runs as Airlock's code.
 */
import { readdirSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { PRODUCT_NAME } from '../dataDir.ts';

export const COMPILE_CACHE_ENV = 'NODE_COMPILE_CACHE';
const DISABLE_COMPILE_CACHE_ENV = 'NODE_DISABLE_COMPILE_CACHE';

/**
 * The user's cache directory for Airlock's compiled sources, as each platform places caches. Only
 * POSIX systems restart in place with it (process.execve); Windows runs without the cache.
 */
export function compileCacheDir(env: NodeJS.ProcessEnv, platform: NodeJS.Platform, homedir: string): string {
  switch (platform) {
    case 'darwin':
      return path.posix.join(homedir, 'Library', 'Caches', PRODUCT_NAME, 'node-compile-cache');
    default:
      return path.posix.join(env.XDG_CACHE_HOME?.trim() || path.posix.join(homedir, '.cache'), PRODUCT_NAME, 'node-compile-cache');
  }
}

/** The environment with the compile cache in `dir`, or null when the user set a cache or turned it off. */
export function compileCachedEnv(env: NodeJS.ProcessEnv, dir: string): NodeJS.ProcessEnv | null {
  if (env[COMPILE_CACHE_ENV] !== undefined || env[DISABLE_COMPILE_CACHE_ENV] !== undefined) return null;
  return { ...env, [COMPILE_CACHE_ENV]: dir };
}

/** This user's compile cache directory for `airlock serve`. */
export const userCompileCacheDir = (): string => compileCacheDir(process.env, process.platform, homedir());

/**
 * Node names each cache in the directory `v<node version>-<arch>-<hash of V8's flags>-<uid>`; the
 * version may carry a pre-release tag (`v24.0.0-rc.1-...`), so a cache is this Node's when its
 * name starts with this version and a dash.
 */
const NODE_CACHE_NAME = /^v\d/;

/**
 * The caches in the directory that other Node versions wrote: this Node never reads them, and
 * nothing else removes them, so each update of Node would leave 30-40 MB behind for good.
 */
export function staleCompileCaches(names: readonly string[], nodeVersion: string): string[] {
  return names.filter((name) => NODE_CACHE_NAME.test(name) && !name.startsWith(`v${nodeVersion}-`));
}

/**
 * Removes other Node versions' caches from Airlock's own cache directory, never from one the user
 * chose (NODE_COMPILE_CACHE set before Airlock started). A cache that cannot be read or removed
 * is left: it costs disk space, not correctness. Returns the caches it removed.
 */
export function pruneStaleCompileCaches(
  env: NodeJS.ProcessEnv,
  dir: string = userCompileCacheDir(),
  remove: (target: string) => void = (target) => rmSync(target, { recursive: true, force: true }),
): string[] {
  if (env[COMPILE_CACHE_ENV] !== dir) return [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const stale = staleCompileCaches(names, process.versions.node);
  return stale.filter((name) => {
    try {
      remove(path.join(dir, name));
      return true;
    } catch {
      // Not ours to remove (another user's, left by a `sudo airlock serve`) or in use: it stays.
      return false;
    }
  });
}
