/** The bench's fixed sizes and durations (bench.ts), each chosen as its comment says. */
import { resolve } from 'node:path';

export const RESULTS_DIR = resolve(import.meta.dirname, '../../test-results');
export const STREAM_CHUNKS = 20;
export const STREAM_CHUNK_INTERVAL_MS = 10;
export const TRACED_STREAMS = 20;
export const OPEN_STREAMS = 200;
/** Slow enough that every stream is still open while the proxy's memory is read. */
export const OPEN_STREAM_CHUNK_INTERVAL_MS = 200;
export const OPEN_STREAMS_FIRST_BYTE_TIMEOUT_MS = 15_000;
export const LARGE_BODY_BYTES = 10 * 1024 * 1024;
/** The 10 MB body's time is the median of this many uploads per target, their order alternating. */
export const LARGE_BODY_TIMED_UPLOADS = 7;
export const PROFILED_MAX_BUSY_MS = 80;
/**
 * Before the c=1 rounds each target answers this many c=1 requests, unmeasured: Airlock lives in
 * the tray all day, so its figure is CPU per request once warm. Measured 2026-11-28 (probes of the
 * bench's load, up to 40 alternated rounds of 600, each thread's schedstat, --trace-opt and
 * --trace-deopt): every target, the floor too, runs its request path in Maglev code until V8 tiers
 * it up to Turbofan at about 10 000 requests (one round of recompiling, V8's worker threads
 * 100-280 us a request); then, once, within the next 3 000 or so, a major collection clears objects
 * that 240-280 of Airlock's optimized functions embed and they are compiled again (never in the
 * floor). After both, CPU per request stops falling (DESIGN.md, "Performance and memory"). The
 * first requests after the first quiet spell re-optimize again in every target (code a prototype
 * change invalidated): 600 more after one, as between an agent's bursts. That spell lasts 6 s at
 * least, longer than node:http's default keep-alive (5 s: the simulator's, the floors' servers'):
 * each target's connections are then closed and opened again before the rounds, as the rounds'
 * gaps close them. Ended by the servers' quiet alone, it lasted as long as the logged Airlock's
 * catch-up after the warm-up, under 5 s in some runs: a target whose connections first closed in a
 * round compiled 65-100 functions again there (the undici floor in 3 runs of 9: 147.6, 123.8 and
 * 150.0 us against 111.9-126.2; measured 2026-11-28, `--only c1` with --trace-opt --trace-deopt,
 * DESIGN.md "Warm at c=1").
 */
const C1_WARMUP = { requests: 16_000, afterQuietRequests: 600, quietMs: 6_000, maxMs: 120_000 } as const;
/** The c=1 runs, as measured and again with the background threads on cores of their own (pinnedCores.ts). */
export const C1_RUNS = { concurrency: 1, count: 600, rounds: 7, maxMs: 10_000, warmup: C1_WARMUP } as const;
export const EMBEDDINGS_PATH = '/v1/embeddings';
/**
 * Each concurrency-50 run lasts this long, whatever the machine's speed: a fixed count of 6000
 * took 2 s on one machine and 0.4 s on one four times faster, where single runs were mostly noise
 * and the logged proxy's last batches fell after its run. Long enough that the log's writing
 * during the run, not its catching up after, decides the figure.
 */
export const C50_RUN_MS = 2_000;
/** Key masking: streams back to back (no pause between deltas), so the relay's CPU decides the rate. */
export const MASKING_STREAM_CHUNKS = 40;
export const MASKING_CONCURRENCY = 10;
export const MASKING_RUN_MS = 1_000;
export const MASKING_ROUNDS = 5;
/** Each large body is sent this many times while the small requests run. */
export const LARGE_BODY_ROUNDS = 2;
/** Sustained saturation: long enough for the log thread's backlog to show (it grew about 6 MB a second). */
export const SATURATION_CONCURRENCY = 50;
export const SATURATION_LOAD_MS = 40_000;
