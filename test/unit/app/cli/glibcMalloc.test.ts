import { describe, expect, it } from 'vitest';
import {
  glibcTunedEnv,
  GLIBC_MALLOC_ENV,
  MALLOC_ARENAS,
  MALLOC_MMAP_THRESHOLD_BYTES,
  tunedStart,
} from '../../../../proxy/app/cli/glibcMalloc.ts';
import { SERVE_V8_FLAGS } from '../../../../proxy/app/cli/v8Flags.ts';

describe('glibcTunedEnv', () => {
  it.each([
    [
      'neither set',
      { PATH: '/bin' },
      { PATH: '/bin', MALLOC_ARENA_MAX: MALLOC_ARENAS, MALLOC_MMAP_THRESHOLD_: MALLOC_MMAP_THRESHOLD_BYTES },
    ],
    [
      'the arena limit set by the user',
      { MALLOC_ARENA_MAX: '8' },
      { MALLOC_ARENA_MAX: '8', MALLOC_MMAP_THRESHOLD_: MALLOC_MMAP_THRESHOLD_BYTES },
    ],
    [
      'the mmap threshold set by the user',
      { MALLOC_MMAP_THRESHOLD_: '65536' },
      { MALLOC_ARENA_MAX: MALLOC_ARENAS, MALLOC_MMAP_THRESHOLD_: '65536' },
    ],
    ['both set', { MALLOC_ARENA_MAX: '8', MALLOC_MMAP_THRESHOLD_: '65536' }, null],
  ])('on glibc, %s: adds what is missing, keeping the rest', (_case, env, expected) => {
    expect(glibcTunedEnv(env, '2.36')).toEqual(expected);
  });

  it('does nothing off glibc (musl, macOS, Windows)', () => {
    expect(glibcTunedEnv({ PATH: '/bin' }, undefined)).toBeNull();
  });
});

describe('tunedStart', () => {
  it('adds the malloc settings and the V8 flags, keeping the flags Node was started with', () => {
    expect(tunedStart({ PATH: '/bin' }, ['--enable-source-maps'], '2.36')).toEqual({
      env: { PATH: '/bin', ...GLIBC_MALLOC_ENV },
      execArgv: ['--enable-source-maps', ...SERVE_V8_FLAGS],
    });
  });

  it('adds only the flags where the malloc settings are there or do not apply, and only those where the flags are there', () => {
    expect(tunedStart({ ...GLIBC_MALLOC_ENV, MALLOC_ARENA_MAX: '8' }, [], '2.36')).toEqual({
      env: { ...GLIBC_MALLOC_ENV, MALLOC_ARENA_MAX: '8' },
      execArgv: [...SERVE_V8_FLAGS],
    });
    expect(tunedStart({}, [], undefined)).toEqual({ env: {}, execArgv: [...SERVE_V8_FLAGS] });
    expect(tunedStart({}, [...SERVE_V8_FLAGS], '2.36')).toEqual({
      env: { ...GLIBC_MALLOC_ENV },
      execArgv: [...SERVE_V8_FLAGS],
    });
  });

  it('asks for no restart once all are there, so the process starts again at most once', () => {
    const first = tunedStart({}, [], '2.36');
    expect(first).not.toBeNull();
    expect(tunedStart(first?.env ?? {}, first?.execArgv ?? [], '2.36')).toBeNull();
  });
});
