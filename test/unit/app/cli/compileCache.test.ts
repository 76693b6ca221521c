import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  COMPILE_CACHE_ENV,
  compileCacheDir,
  compileCachedEnv,
  pruneStaleCompileCaches,
  staleCompileCaches,
} from '../../../../proxy/app/cli/compileCache.ts';
import { GLIBC_MALLOC_ENV, tunedStart } from '../../../../proxy/app/cli/glibcMalloc.ts';
import { SERVE_V8_FLAGS } from '../../../../proxy/app/cli/v8Flags.ts';

describe('compileCacheDir', () => {
  it.each([
    { platform: 'linux' as const, env: {}, expected: '/home/u/.cache/Airlock/node-compile-cache' },
    { platform: 'linux' as const, env: { XDG_CACHE_HOME: '/var/cache/u' }, expected: '/var/cache/u/Airlock/node-compile-cache' },
    { platform: 'darwin' as const, env: {}, expected: '/home/u/Library/Caches/Airlock/node-compile-cache' },
  ])('$platform with $env -> $expected', ({ platform, env, expected }) => {
    expect(compileCacheDir(env, platform, '/home/u')).toBe(expected);
  });
});

describe('staleCompileCaches', () => {
  it.each([
    { names: ['v24.21.0-x64-1c717fce-0', 'v24.21.0-x64-964aae3f-0'], expected: [] },
    {
      names: ['v24.20.0-x64-1c717fce-0', 'v24.21.0-x64-1c717fce-0', 'v22.1.0-arm64-aa-0'],
      expected: ['v24.20.0-x64-1c717fce-0', 'v22.1.0-arm64-aa-0'],
    },
    { names: ['notes.txt', '.tmp'], expected: [] },
  ])('in $names on 24.21.0: $expected', ({ names, expected }) => {
    expect(staleCompileCaches(names, '24.21.0')).toEqual(expected);
  });

  it("keeps a pre-release Node's own cache", () => {
    expect(staleCompileCaches(['v24.0.0-rc.1-x64-aa-0', 'v23.9.0-x64-aa-0'], '24.0.0-rc.1')).toEqual(['v23.9.0-x64-aa-0']);
  });
});

describe('pruneStaleCompileCaches', () => {
  const current = `v${process.versions.node}-x64-1c717fce-0`;
  const older = 'v20.0.0-x64-1c717fce-0';
  const withCaches = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'airlock-compile-cache-'));
    for (const name of [current, older]) mkdirSync(join(dir, name));
    return dir;
  };

  it("removes other Node versions' caches from Airlock's own directory", () => {
    const dir = withCaches();
    try {
      expect(pruneStaleCompileCaches({ [COMPILE_CACHE_ENV]: dir }, dir)).toEqual([older]);
      expect(readdirSync(dir)).toEqual([current]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('leaves a cache it cannot remove (EACCES: left by another user) and removes the rest', () => {
    const dir = withCaches();
    const theirs = 'v19.0.0-x64-1c717fce-0';
    mkdirSync(join(dir, theirs));
    try {
      const removed = pruneStaleCompileCaches({ [COMPILE_CACHE_ENV]: dir }, dir, (target) => {
        if (target.endsWith(theirs)) throw Object.assign(new Error(`EACCES: permission denied, rmdir '${target}'`), { code: 'EACCES' });
        rmSync(target, { recursive: true, force: true });
      });
      expect(removed).toEqual([older]);
      expect(readdirSync(dir).sort()).toEqual([current, theirs].sort());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('leaves a directory the user chose alone', () => {
    const dir = withCaches();
    try {
      expect(pruneStaleCompileCaches({ [COMPILE_CACHE_ENV]: '/somewhere/else' }, dir)).toEqual([]);
      expect(readdirSync(dir).sort()).toEqual([current, older].sort());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('compileCachedEnv', () => {
  it('adds the cache directory, keeping the rest of the environment', () => {
    expect(compileCachedEnv({ PATH: '/bin' }, '/c')).toEqual({ PATH: '/bin', [COMPILE_CACHE_ENV]: '/c' });
  });

  it("keeps the user's own cache, and stays off where the user turned it off", () => {
    expect(compileCachedEnv({ [COMPILE_CACHE_ENV]: '/mine' }, '/c')).toBeNull();
    expect(compileCachedEnv({ NODE_DISABLE_COMPILE_CACHE: '1' }, '/c')).toBeNull();
  });
});

describe('tunedStart with a compile cache directory', () => {
  it('starts again with the cache as well as the arena limit and the flags, once', () => {
    const first = tunedStart({ PATH: '/bin' }, [], '2.36', '/c');
    expect(first).toEqual({
      env: { PATH: '/bin', ...GLIBC_MALLOC_ENV, [COMPILE_CACHE_ENV]: '/c' },
      execArgv: [...SERVE_V8_FLAGS],
    });
    expect(tunedStart(first?.env ?? {}, first?.execArgv ?? [], '2.36', '/c')).toBeNull();
  });

  it('starts again for the cache alone when the rest is there', () => {
    expect(tunedStart({ ...GLIBC_MALLOC_ENV, MALLOC_ARENA_MAX: '8' }, [...SERVE_V8_FLAGS], '2.36', '/c')).toEqual({
      env: { ...GLIBC_MALLOC_ENV, MALLOC_ARENA_MAX: '8', [COMPILE_CACHE_ENV]: '/c' },
      execArgv: [...SERVE_V8_FLAGS],
    });
  });
});
