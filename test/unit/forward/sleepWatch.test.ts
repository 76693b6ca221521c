import { describe, expect, it } from 'vitest';
import { SLEEP_SEEN_AFTER_MS, SleepWatch } from '../../../proxy/forward/sleepWatch.ts';

/** A machine's two clocks: the wall clock runs on while it sleeps, the monotonic one stands still. */
function machine() {
  const clocks = { wallMs: 1_800_000_000_000, monotonicMs: 1_000 };
  return {
    watch: new SleepWatch(
      () => clocks.wallMs,
      () => clocks.monotonicMs,
    ),
    run(ms: number) {
      clocks.wallMs += ms;
      clocks.monotonicMs += ms;
    },
    sleep(ms: number) {
      clocks.wallMs += ms;
    },
    setWallBack(ms: number) {
      clocks.wallMs -= ms;
    },
  };
}

describe('SleepWatch', () => {
  it('sees a sleep once, at the first look after it', () => {
    const laptop = machine();
    laptop.run(60_000);
    expect(laptop.watch.slept()).toBe(false);
    laptop.sleep(8 * 3_600_000);
    laptop.run(200);
    expect(laptop.watch.slept()).toBe(true);
    expect(laptop.watch.slept()).toBe(false);
  });

  it('takes neither hours of running nor a clock set back for a sleep', () => {
    const laptop = machine();
    laptop.run(5 * 3_600_000);
    expect(laptop.watch.slept()).toBe(false);
    laptop.setWallBack(3_600_000);
    expect(laptop.watch.slept()).toBe(false);
    laptop.run(1_000);
    expect(laptop.watch.slept()).toBe(false);
  });

  it('a pause shorter than the bound (NTP slewing, a stalled loop) is no sleep', () => {
    const laptop = machine();
    laptop.sleep(SLEEP_SEEN_AFTER_MS - 1);
    expect(laptop.watch.slept()).toBe(false);
  });
});
