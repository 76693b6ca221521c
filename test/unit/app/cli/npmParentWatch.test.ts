import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PARENT_CHECK_INTERVAL_MS, startedByNpm, watchNpmParent } from '../../../../proxy/app/cli/npmParentWatch.ts';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

const NPM_RUN = { npm_lifecycle_event: 'serve' };

/** A watch over a parent id the test moves; `stopped` counts the calls to onParentGone. */
function watched(env: NodeJS.ProcessEnv, parentPidAtStart = 4242) {
  let parentPid = parentPidAtStart;
  const result = { stopped: 0, setParent: (pid: number) => (parentPid = pid), unwatch: (): void => undefined };
  result.unwatch = watchNpmParent({ env, parentPidAtStart, parentPid: () => parentPid, onParentGone: () => (result.stopped += 1) });
  return result;
}

describe('startedByNpm', () => {
  it.each([
    [{ npm_lifecycle_event: 'serve' }, true],
    [{ npm_command: 'exec' }, true],
    [{}, false],
    [{ PATH: '/usr/bin' }, false],
  ])('%o -> %s', (env, expected) => {
    expect(startedByNpm(env)).toBe(expected);
  });
});

describe('watchNpmParent', () => {
  it('stops once when the parent that started it is gone, at the next look', () => {
    const watch = watched(NPM_RUN);
    vi.advanceTimersByTime(PARENT_CHECK_INTERVAL_MS * 3);
    expect(watch.stopped).toBe(0);
    watch.setParent(1);
    vi.advanceTimersByTime(PARENT_CHECK_INTERVAL_MS);
    expect(watch.stopped).toBe(1);
    vi.advanceTimersByTime(PARENT_CHECK_INTERVAL_MS * 5);
    expect(watch.stopped).toBe(1);
  });

  it('stops at once when the parent went while Airlock was starting', () => {
    let stopped = 0;
    watchNpmParent({ env: NPM_RUN, parentPidAtStart: 4242, parentPid: () => 1, onParentGone: () => (stopped += 1) });
    expect(stopped).toBe(1);
  });

  it('never stops a process npm did not start: its parent may go (a shell closed under nohup, a launcher)', () => {
    const watch = watched({});
    watch.setParent(1);
    vi.advanceTimersByTime(PARENT_CHECK_INTERVAL_MS * 5);
    expect(watch.stopped).toBe(0);
  });

  it('looks no more once unwatched (the stop began with a signal)', () => {
    const watch = watched(NPM_RUN);
    watch.unwatch();
    watch.setParent(1);
    vi.advanceTimersByTime(PARENT_CHECK_INTERVAL_MS * 5);
    expect(watch.stopped).toBe(0);
  });
});
