import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { EXPOSE_GC_SWITCH, RELAUNCHED_ENV } from '../../../electron/logic/memoryLaunch.ts';
import { GLIBC_MALLOC_ENV, runtimeGlibcVersion } from '../../../proxy/app/cli/glibcMalloc.ts';
import { recorder } from '../../support/electronStandIn.ts';

/**
 * The real electron/main.ts started as a user's first start is: without `--js-flags=--expose-gc`
 * and (Linux, glibc) without glibc's malloc settings. It starts itself again with them, once, before it
 * takes the single-instance lock or starts its proxy.
 */
vi.mock('electron', async () => (await import('../../support/electronStandIn.ts')).electronModule);

const dataDir = mkdtempSync(join(tmpdir(), 'airlock-relaunch-'));

afterAll(() => {
  vi.unstubAllEnvs();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('electron/main.ts without the memory switches', () => {
  it('relaunches itself with gc exposed and the malloc settings, marked so the new instance never relaunches, and starts nothing', async () => {
    vi.stubEnv('AIRLOCK_DATA_DIR', dataDir);
    vi.stubEnv('AIRLOCK_PORT', '0');
    vi.stubEnv(RELAUNCHED_ENV, undefined);
    for (const name of Object.keys(GLIBC_MALLOC_ENV)) vi.stubEnv(name, undefined);
    expect((globalThis as { gc?: unknown }).gc).toBeUndefined();

    await import('../../../electron/main.ts');

    const relaunches = recorder.events.filter((event) => event.startsWith('app:relaunch '));
    expect(relaunches).toHaveLength(1);
    const { args } = JSON.parse(relaunches[0]?.slice('app:relaunch '.length) ?? '{}') as { args: string[] };
    expect(args).toEqual([EXPOSE_GC_SWITCH, ...process.argv.slice(1)]);
    expect(recorder.events.at(-1)).toBe('app:exit 0');
    // The new instance inherits this environment.
    expect(process.env[RELAUNCHED_ENV]).toBe('1');
    for (const [name, value] of Object.entries(GLIBC_MALLOC_ENV))
      expect(process.env[name]).toBe(runtimeGlibcVersion() === undefined ? undefined : value);
    expect(recorder.events.some((event) => event.startsWith('tray:') || event.startsWith('window:'))).toBe(false);
  });
});
