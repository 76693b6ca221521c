import { describe, expect, it } from 'vitest';
import { EXPOSE_GC_SWITCH, planMemoryRelaunch, RELAUNCHED_ENV, type MemoryLaunchFacts } from '../../../electron/logic/memoryLaunch.ts';
import { SERVE_V8_FLAGS } from '../../../proxy/app/cli/v8Flags.ts';

const facts = (overrides: Partial<MemoryLaunchFacts> = {}): MemoryLaunchFacts => ({
  argv: ['/opt/Airlock/airlock', '--hidden'],
  env: {},
  gcExposed: false,
  glibcVersion: '2.36',
  mallocEnv: { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072' },
  openedAtLogin: false,
  hiddenArg: '--hidden',
  ...overrides,
});

describe('planMemoryRelaunch', () => {
  it('starts again with gc exposed and the malloc settings when all are missing (Linux, glibc), keeping the arguments', () => {
    expect(planMemoryRelaunch(facts())).toEqual({
      args: [EXPOSE_GC_SWITCH, '--hidden'],
      env: { [RELAUNCHED_ENV]: '1', MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072' },
    });
  });

  it.each<[string, Partial<MemoryLaunchFacts>, ReturnType<typeof planMemoryRelaunch>]>([
    ['nothing missing', { gcExposed: true, env: { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '65536' } }, null],
    ['the relaunched instance, even if the flag did not take', { env: { [RELAUNCHED_ENV]: '1' } }, null],
    [
      'only the malloc settings missing',
      { gcExposed: true },
      { args: ['--hidden'], env: { [RELAUNCHED_ENV]: '1', MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072' } },
    ],
    [
      'only the mmap threshold missing',
      { gcExposed: true, env: { MALLOC_ARENA_MAX: '2' } },
      { args: ['--hidden'], env: { [RELAUNCHED_ENV]: '1', MALLOC_MMAP_THRESHOLD_: '131072' } },
    ],
    [
      "the user's own settings are kept",
      { env: { MALLOC_ARENA_MAX: '8', MALLOC_MMAP_THRESHOLD_: '1048576' } },
      { args: [EXPOSE_GC_SWITCH, '--hidden'], env: { [RELAUNCHED_ENV]: '1' } },
    ],
    [
      'not glibc (macOS, Windows, musl): gc only',
      { glibcVersion: undefined },
      { args: [EXPOSE_GC_SWITCH, '--hidden'], env: { [RELAUNCHED_ENV]: '1' } },
    ],
    ['not glibc and gc exposed', { glibcVersion: undefined, gcExposed: true }, null],
    [
      'opened at login (macOS) stays hidden',
      { argv: ['/Applications/Airlock.app/Contents/MacOS/Airlock'], openedAtLogin: true, glibcVersion: undefined },
      { args: [EXPOSE_GC_SWITCH, '--hidden'], env: { [RELAUNCHED_ENV]: '1' } },
    ],
  ])('%s', (_name, overrides, expected) => {
    expect(planMemoryRelaunch(facts(overrides))).toEqual(expected);
  });
});

describe('the switch the desktop app starts with', () => {
  it('carries every V8 flag airlock serve runs with, after --expose-gc, in one --js-flags', () => {
    expect(EXPOSE_GC_SWITCH).toBe(`--js-flags=--expose-gc ${SERVE_V8_FLAGS.join(' ')}`);
    expect(SERVE_V8_FLAGS).toContain('--no-memory-reducer');
  });
});
