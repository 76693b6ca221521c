/**
 * V8 flags `airlock serve` runs with. They must be on the command line: V8 reads them when it
 * sets a heap up, so setting them later (v8.setFlagsFromString) leaves the main heap as it was.
 *
 * `--no-memory-reducer`: V8's memory reducer, after a major collection followed by a quiet spell,
 * shrinks the heap and then leaves it growing slowly (a heap limit near 1.3x the live size) until
 * something resets it. For a proxy that idles between an agent's bursts this meant a major
 * collection every 1-3 s under load instead of every 10-20 s: 13 instead of 2-3 in the same
 * 20,000 requests at c=50 (measured with --trace-gc), and about 30 us more CPU per request,
 * depending only on whether the reducer had run before the burst. Giving memory back after a
 * burst is done by proxy/core/memoryReclaimer.ts instead, once, after 30 s idle.
 */
export const SERVE_V8_FLAGS: readonly string[] = ['--no-memory-reducer'];

/** The flags of SERVE_V8_FLAGS that `execArgv` (the process's own Node flags) lacks. */
export function missingV8Flags(execArgv: readonly string[]): string[] {
  return SERVE_V8_FLAGS.filter((flag) => !execArgv.includes(flag));
}
