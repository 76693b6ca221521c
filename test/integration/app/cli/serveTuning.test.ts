import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { COMPILE_CACHE_ENV } from '../../../../proxy/app/cli/compileCache.ts';
import { MALLOC_ARENAS, MALLOC_MMAP_THRESHOLD_BYTES } from '../../../../proxy/app/cli/glibcMalloc.ts';
import { SERVE_V8_FLAGS } from '../../../../proxy/app/cli/v8Flags.ts';
import { SENTINEL_KEY } from '../../../support/sentinel.ts';
import { freePort } from '../../../support/freePort.ts';

const AIRLOCK_BIN = fileURLToPath(new URL('../../../../proxy/app/cli/bin.js', import.meta.url));

let dataDir: string;

beforeAll(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-serve-tuning-'));
});
afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

/** The NUL-separated entries of a /proc file of a running process. */
const procList = (pid: number, file: 'cmdline' | 'environ'): string[] => readFileSync(`/proc/${pid}/${file}`, 'utf8').split('\0');

describe('`airlock serve` starts itself tuned for running all day', () => {
  it("runs, under the same pid, with the V8 flags, the malloc arena limit and the compile cache in the user's cache directory", async () => {
    const cacheHome = path.join(dataDir, 'cache-home');
    const env: NodeJS.ProcessEnv = { ...process.env, AIRLOCK_API_KEY: SENTINEL_KEY, XDG_CACHE_HOME: cacheHome };
    delete env.MALLOC_ARENA_MAX;
    delete env.MALLOC_MMAP_THRESHOLD_;
    delete env[COMPILE_CACHE_ENV];
    const port = await freePort();
    const child = spawn(process.execPath, [AIRLOCK_BIN, 'serve', '--data-dir', dataDir, '--port', String(port)], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const pid = child.pid as number;
    try {
      // Its first line of output comes after the restart: by then /proc shows the restarted process.
      await new Promise<void>((resolve, reject) => {
        child.stdout.once('data', () => resolve());
        child.once('exit', (code) => reject(new Error(`airlock serve exited with ${code} before printing`)));
      });
      expect(procList(pid, 'cmdline')).toEqual(expect.arrayContaining([...SERVE_V8_FLAGS]));
      expect(procList(pid, 'environ')).toContain(`MALLOC_ARENA_MAX=${MALLOC_ARENAS}`);
      expect(procList(pid, 'environ')).toContain(`MALLOC_MMAP_THRESHOLD_=${MALLOC_MMAP_THRESHOLD_BYTES}`);
      const cacheDir = path.join(cacheHome, 'Airlock', 'node-compile-cache');
      expect(procList(pid, 'environ')).toContain(`${COMPILE_CACHE_ENV}=${cacheDir}`);
      // Node writes the cache as the modules compile: the directory is there once it serves.
      expect(existsSync(cacheDir)).toBe(true);
    } finally {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        process.kill(pid, 'SIGTERM');
        await exited;
      }
    }
  });
});
