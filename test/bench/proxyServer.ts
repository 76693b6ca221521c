/**
 * A proxy under test, in its own process:
 *   node test/bench/proxyServer.ts --kind floor|airlock [--log] --upstream http://127.0.0.1:PORT
 * prints `listening on http://127.0.0.1:PORT` and stops on SIGTERM. Each kind is imported only
 * when chosen, so the floor's process holds none of Airlock's modules.
 */
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    kind: { type: 'string' },
    upstream: { type: 'string' },
    log: { type: 'boolean', default: false },
  },
});
const upstreamUrl = values.upstream;
if (upstreamUrl === undefined) throw new Error('--upstream is required');

async function startFloor(upstream: string): Promise<{ url: string; stop(): Promise<void> }> {
  const { createFloorProxy } = await import('./floorProxy.ts');
  const server = createFloorProxy(upstream);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

async function startChosen(): Promise<{ url: string; stop(): Promise<void> }> {
  if (values.kind === 'floor') return startFloor(upstreamUrl as string);
  if (values.kind !== 'airlock') throw new Error('--kind must be floor or airlock');
  const { startAirlock } = await import('./airlockServer.ts');
  return startAirlock(upstreamUrl as string, values.log);
}

const server = await startChosen();
// With --expose-gc, SIGUSR2 collects garbage, so the bench reads memory held, not memory not yet freed.
const collectGarbage = (globalThis as { gc?: () => void }).gc;
if (collectGarbage !== undefined) process.on('SIGUSR2', () => collectGarbage());
console.log(`listening on ${server.url}`);
process.once('SIGTERM', () => {
  // exit() after stopping, so a --cpu-prof profile is written.
  void server.stop().finally(() => process.exit(0));
});
