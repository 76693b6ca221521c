/**
 * A proxy under test, in its own process:
 *   node test/bench/proxyServer.ts --kind floor|undici-floor|undici-floor-read-first|airlock [--log [--log-backlog-mib <n>] [--log-dir <dir>]] [--no-client-token] --upstream http://127.0.0.1:PORT
 * prints `listening on http://127.0.0.1:PORT` and stops on SIGTERM. Each kind is imported only
 * when chosen, so the floor's process holds none of Airlock's modules.
 */
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { writeHeapSnapshot } from 'node:v8';
import { createLoopWatch } from './loopWatch.ts';
import { glibcMallocTrim } from '../../proxy/core/mallocTrim.ts';

const { values } = parseArgs({
  options: {
    kind: { type: 'string' },
    upstream: { type: 'string' },
    log: { type: 'boolean', default: false },
    // The log's memory limit (the logBacklogMiB setting); its default unless given.
    'log-backlog-mib': { type: 'string' },
    // The log's data directory (a temporary one unless given), for a bench that reads the log.
    'log-dir': { type: 'string' },
    // Airlock takes every request without a client token, as it did before tokens (airlockServer.ts).
    'no-client-token': { type: 'boolean', default: false },
  },
});
const upstreamUrl = values.upstream;
if (upstreamUrl === undefined) throw new Error('--upstream is required');

const FLOOR_KINDS = ['floor', 'undici-floor', 'undici-floor-read-first'] as const;
export type FloorKind = (typeof FLOOR_KINDS)[number];

interface Started {
  url: string;
  /** Airlock with its log only: resolves once its log thread wrote everything posted so far. */
  flushLog?: () => Promise<void>;
  stop(): Promise<void>;
}

async function startFloor(kind: FloorKind, upstream: string): Promise<Started> {
  const server =
    kind === 'floor'
      ? (await import('./floorProxy.ts')).createFloorProxy(upstream)
      : (await import('./undiciFloor.ts')).createUndiciFloorProxy(upstream, { readBodyFirst: kind === 'undici-floor-read-first' });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

async function startChosen(): Promise<Started> {
  if (FLOOR_KINDS.includes(values.kind as FloorKind)) return startFloor(values.kind as FloorKind, upstreamUrl as string);
  if (values.kind !== 'airlock') throw new Error('--kind must be floor, undici-floor, undici-floor-read-first or airlock');
  const { startAirlock } = await import('./airlockServer.ts');
  const backlogMiB = values['log-backlog-mib'] === undefined ? undefined : Number(values['log-backlog-mib']);
  return startAirlock(upstreamUrl as string, values.log, {
    clientToken: !values['no-client-token'],
    ...(backlogMiB === undefined ? {} : { backlogMiB }),
    ...(values['log-dir'] === undefined ? {} : { logDir: values['log-dir'] }),
  });
}

const server = await startChosen();
/**
 * With --expose-gc the bench reads memory held, not memory not yet freed (collectAndReadRss).
 * The memory-reducing flavor also gives back the young generation's empty pages: V8 doubles
 * it under allocation (1 -> 16 MB) and a plain full collection keeps it, so whether a doubling fell
 * inside a window decided 20-40 KB of the RSS per open stream (DESIGN.md, "Performance and
 * memory"). Every target gets the same.
 */
const collectGarbage = (globalThis as { gc?: (options: object) => void }).gc;
const FULL_COLLECTION = { type: 'major', execution: 'sync', flavor: 'last-resort' };
let mallocTrim: (() => boolean) | undefined;
/** V8 frees the backing stores a collection found dead on a background thread, after it. */
const BACKGROUND_FREE_WAIT_MS = 200;
/**
 * The memory this process holds, as little else as can be: a full collection, a wait for V8's
 * background frees, then another collection, glibc's trim of the free pages in the middle of its
 * arenas, and the read, in one turn. Read 200 ms after a single collection instead, the open
 * streams' chunks had refilled the young generation it emptied (1.2-1.8 MB, counted as theirs),
 * and memory freed but still resident before the streams (1-2.5 MB) was taken by them unseen:
 * together they swung Airlock's figure per stream from 35 to 92 KB (DESIGN.md, "Performance and
 * memory"). Every target is read so.
 */
async function collectAndReadRss(): Promise<number> {
  if (collectGarbage === undefined) throw new Error('reading the memory held needs --expose-gc');
  collectGarbage(FULL_COLLECTION);
  await new Promise((resolve) => setTimeout(resolve, BACKGROUND_FREE_WAIT_MS));
  collectGarbage(FULL_COLLECTION);
  mallocTrim ??= glibcMallocTrim() ?? (() => false);
  mallocTrim();
  return process.memoryUsage.rss();
}
// Watched only when asked over IPC (childServer.ts), as its timers cost a little CPU.
const loopWatch = createLoopWatch();
process.on('message', (message) => {
  if (typeof message === 'object' && message !== null && 'heapSnapshot' in message) {
    // For the memory investigation (issue 20): a snapshot of this thread's heap at a chosen moment.
    process.send?.({ file: writeHeapSnapshot(String(message.heapSnapshot)) });
    return;
  }
  if (message === 'flush-log') {
    void (server.flushLog?.() ?? Promise.resolve()).then(() => process.send?.('log-flushed'));
    return;
  }
  if (message === 'collect-and-read-rss') {
    void collectAndReadRss().then((rssBytes) => process.send?.({ rssBytes }));
    return;
  }
  if (message === 'memory') {
    process.send?.(process.memoryUsage());
    return;
  }
  if (message === 'watch-loop') loopWatch.enable();
  else if (message === 'unwatch-loop') loopWatch.disable();
  process.send?.(loopWatch.read());
});
console.log(`listening on ${server.url}`);
process.once('SIGTERM', () => {
  // exit() after stopping, so a --cpu-prof profile is written.
  void server.stop().finally(() => process.exit(0));
});
