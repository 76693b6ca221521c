/**
 * The bench's server processes (childServer.ts): each started one is remembered until stopped, so
 * a failed run stops whatever it left; proxies start as `airlock serve` would start Airlock.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { COMPILE_CACHE_ENV, userCompileCacheDir } from '../../proxy/app/cli/compileCache.ts';
import { GLIBC_MALLOC_ENV } from '../../proxy/app/cli/glibcMalloc.ts';
import { SERVE_V8_FLAGS } from '../../proxy/app/cli/v8Flags.ts';
import { startChildServer, type ChildOptions, type ChildServer } from './childServer.ts';
import type { FloorKind } from './proxyServer.ts';

/**
 * glibc keeps freed memory for reuse, so a process that freed a lot at start-up (Airlock warms its
 * tokenizer) could hide new allocations from RSS. For memory figures, blocks of 32 KiB and more
 * are mmapped and returned on free, so RSS follows the bytes actually held.
 */
const EXACT_RSS_ENV = { MALLOC_MMAP_THRESHOLD_: '32768', MALLOC_TRIM_THRESHOLD_: '0' };

/** What `airlock serve` sets for itself before it starts (proxy/app/cli/glibcMalloc.ts, v8Flags.ts, compileCache.ts). */
const AIRLOCK_SERVE_ENV = { ...GLIBC_MALLOC_ENV, [COMPILE_CACHE_ENV]: userCompileCacheDir() };

export type ProxyKind = FloorKind | 'airlock';

export interface BenchProcesses {
  start(script: string, args: string[], options?: ChildOptions): Promise<ChildServer>;
  stop(...children: ChildServer[]): Promise<void>;
  /**
   * `logDir`: a logged Airlock's data directory; otherwise a temporary one, made here and removed once
   * the process has ended (a child killed after its stop timeout cannot remove its own).
   */
  startProxy(kind: ProxyKind, upstreamUrl: string, options?: { log?: boolean; exactRss?: boolean; logDir?: string }): Promise<ChildServer>;
  /** Stops every process still running. */
  stopAll(): Promise<void>;
}

/** `logArgs` go to a logged Airlock, `airlockNodeFlags` to every Airlock (a profiler's, say). */
export function benchProcesses(logArgs: readonly string[], airlockNodeFlags: readonly string[]): BenchProcesses {
  const running = new Set<ChildServer>();
  const temporaryLogDirs = new Map<ChildServer, string>();
  const start = async (script: string, args: string[], options: ChildOptions = {}): Promise<ChildServer> => {
    const child = await startChildServer(script, args, options);
    running.add(child);
    return child;
  };
  const stop = async (...children: ChildServer[]): Promise<void> => {
    await Promise.all(children.map((child) => child.stop()));
    for (const child of children) {
      running.delete(child);
      const logDir = temporaryLogDirs.get(child);
      if (logDir !== undefined) rmSync(logDir, { recursive: true, force: true });
      temporaryLogDirs.delete(child);
    }
  };
  const startProxy: BenchProcesses['startProxy'] = async (kind, upstreamUrl, options = {}) => {
    const temporaryLogDir = options.log && options.logDir === undefined ? mkdtempSync(join(tmpdir(), 'airlock-bench-log-')) : undefined;
    const logDir = options.logDir ?? temporaryLogDir;
    const child = await start(
      'proxyServer.ts',
      [
        '--kind',
        kind,
        '--upstream',
        upstreamUrl,
        ...(options.log ? ['--log', ...logArgs, ...(logDir === undefined ? [] : ['--log-dir', logDir])] : []),
      ],
      {
        nodeFlags: [...(kind === 'airlock' ? [...SERVE_V8_FLAGS, ...airlockNodeFlags] : []), ...(options.exactRss ? ['--expose-gc'] : [])],
        env: { ...(kind === 'airlock' ? AIRLOCK_SERVE_ENV : {}), ...(options.exactRss ? EXACT_RSS_ENV : {}) },
      },
    ).catch((error: unknown) => {
      if (temporaryLogDir !== undefined) rmSync(temporaryLogDir, { recursive: true, force: true });
      throw error;
    });
    if (temporaryLogDir !== undefined) temporaryLogDirs.set(child, temporaryLogDir);
    return child;
  };
  return {
    start,
    stop,
    startProxy,
    stopAll: () => stop(...running),
  };
}
