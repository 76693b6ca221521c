import { describe, expect, it } from 'vitest';
import { arenaLimitedEnv, MALLOC_ARENA_ENV, MALLOC_ARENAS, tunedStart } from '../../../../proxy/app/cli/mallocArenas.ts';
import { SERVE_V8_FLAGS } from '../../../../proxy/app/cli/v8Flags.ts';

describe('arenaLimitedEnv', () => {
  it('adds the arena limit on glibc, keeping the rest of the environment', () => {
    expect(arenaLimitedEnv({ PATH: '/bin' }, '2.36')).toEqual({ PATH: '/bin', [MALLOC_ARENA_ENV]: MALLOC_ARENAS });
  });

  it('keeps a limit the user set, and does nothing off glibc (musl, macOS, Windows)', () => {
    expect(arenaLimitedEnv({ [MALLOC_ARENA_ENV]: '8' }, '2.36')).toBeNull();
    expect(arenaLimitedEnv({ PATH: '/bin' }, undefined)).toBeNull();
  });
});

describe('tunedStart', () => {
  it('adds the arena limit and the V8 flags, keeping the flags Node was started with', () => {
    expect(tunedStart({ PATH: '/bin' }, ['--enable-source-maps'], '2.36')).toEqual({
      env: { PATH: '/bin', [MALLOC_ARENA_ENV]: MALLOC_ARENAS },
      execArgv: ['--enable-source-maps', ...SERVE_V8_FLAGS],
    });
  });

  it('adds only the flags where the limit is set or does not apply, and only the limit where the flags are there', () => {
    expect(tunedStart({ [MALLOC_ARENA_ENV]: '8' }, [], '2.36')).toEqual({
      env: { [MALLOC_ARENA_ENV]: '8' },
      execArgv: [...SERVE_V8_FLAGS],
    });
    expect(tunedStart({}, [], undefined)).toEqual({ env: {}, execArgv: [...SERVE_V8_FLAGS] });
    expect(tunedStart({}, [...SERVE_V8_FLAGS], '2.36')).toEqual({
      env: { [MALLOC_ARENA_ENV]: MALLOC_ARENAS },
      execArgv: [...SERVE_V8_FLAGS],
    });
  });

  it('asks for no restart once both are there, so the process starts again at most once', () => {
    const first = tunedStart({}, [], '2.36');
    expect(first).not.toBeNull();
    expect(tunedStart(first?.env ?? {}, first?.execArgv ?? [], '2.36')).toBeNull();
  });
});
