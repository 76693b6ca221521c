/**
 * A proxy under test, in its own process:
 *   node test/bench/proxyServer.ts --kind floor|undici-floor|airlock [--log [--log-backlog-mib <n>]] [--no-client-token] --upstream http://127.0.0.1:PORT
 * prints `listening on http://127.0.0.1:PORT` and stops on SIGTERM. Each kind is imported only
 * when chosen, so the floor's process holds none of Airlock's modules.
 */
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { writeHeapSnapshot } from 'node:v8';
import { createLoopWatch } from './loopWatch.ts';

const { values } = parseArgs({
  options: {
    kind: { type: 'string' },
    upstream: { type: 'string' },
    log: { type: 'boolean', default: false },
    // The log's memory limit (the logBacklogMiB setting); its default unless given.
    'log-backlog-mib': { type: 'string' },
    // Airlock takes every request without a client token, as it did before tokens (airlockServer.ts).
    'no-client-token': { type: 'boolean', default: false },
  },
});
const upstreamUrl = values.upstream;
if (upstreamUrl === undefined) throw new Error('--upstream is required');

interface Started {
  url: string;
  /** Airlock with its log only: resolves once its log thread wrote everything posted so far. */
  flushLog?: () => Promise<void>;
  stop(): Promise<void>;
}

async function startFloor(kind: 'floor' | 'undici-floor', upstream: string): Promise<Started> {
  const server =
    kind === 'floor'
      ? (await import('./floorProxy.ts')).createFloorProxy(upstream)
      : (await import('./undiciFloor.ts')).createUndiciFloorProxy(upstream);
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
  if (values.kind === 'floor' || values.kind === 'undici-floor') return startFloor(values.kind, upstreamUrl as string);
  if (values.kind !== 'airlock') throw new Error('--kind must be floor, undici-floor or airlock');
  const { startAirlock } = await import('./airlockServer.ts');
  const backlogMiB = values['log-backlog-mib'] === undefined ? undefined : Number(values['log-backlog-mib']);
  return startAirlock(upstreamUrl as string, values.log, {
    clientToken: !values['no-client-token'],
    ...(backlogMiB === undefined ? {} : { backlogMiB }),
  });
}

const server = await startChosen();
/**
 * With --expose-gc, SIGUSR2 collects garbage, so the bench reads memory held, not memory not yet
 * freed. The memory-reducing flavor also gives back the young generation's empty pages: V8 doubles
 * it under allocation (1 -> 16 MB) and a plain full collection keeps it, so whether a doubling fell
 * inside a window decided 20-40 KB of the RSS per open stream (DESIGN.md, "Performance and
 * memory"). Every target gets the same.
 */
const collectGarbage = (globalThis as { gc?: (options: object) => void }).gc;
if (collectGarbage !== undefined) process.on('SIGUSR2', () => collectGarbage({ type: 'major', execution: 'sync', flavor: 'last-resort' }));
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
    if (collectGarbage === undefined) throw new Error('collect-and-read-rss needs --expose-gc');
    collectGarbage({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    // In this turn: nothing has allocated since the collection, so the young generation is empty.
    process.send?.({ rssBytes: process.memoryUsage.rss() });
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
