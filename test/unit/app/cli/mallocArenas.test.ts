import { describe, expect, it } from 'vitest';
import { arenaLimitedEnv, MALLOC_ARENA_ENV, MALLOC_ARENAS } from '../../../../proxy/app/cli/mallocArenas.ts';

describe('arenaLimitedEnv', () => {
  it('adds the arena limit on glibc, keeping the rest of the environment', () => {
    expect(arenaLimitedEnv({ PATH: '/bin' }, '2.36')).toEqual({ PATH: '/bin', [MALLOC_ARENA_ENV]: MALLOC_ARENAS });
  });

  it('keeps a limit the user set, and does nothing off glibc (musl, macOS, Windows)', () => {
    expect(arenaLimitedEnv({ [MALLOC_ARENA_ENV]: '8' }, '2.36')).toBeNull();
    expect(arenaLimitedEnv({ PATH: '/bin' }, undefined)).toBeNull();
  });
});
