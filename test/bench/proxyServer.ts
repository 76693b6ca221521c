/**
 * A proxy under test, in its own process:
 *   node test/bench/proxyServer.ts --kind floor|airlock [--log] --upstream http://127.0.0.1:PORT
 * prints `listening on http://127.0.0.1:PORT` and stops on SIGTERM.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { profileSchema } from '../../proxy/contracts/profile.ts';
import { createRequestLog } from '../../proxy/log/requestLog.ts';
import { startServer } from '../../proxy/server/startServer.ts';
import { SENTINEL_KEY } from '../support/sentinel.ts';
import { createFloorProxy } from './floorProxy.ts';

const { values } = parseArgs({
  options: {
    kind: { type: 'string' },
    upstream: { type: 'string' },
    log: { type: 'boolean', default: false },
  },
});
const upstreamUrl = values.upstream;
if (upstreamUrl === undefined) throw new Error('--upstream is required');

async function startFloor(upstream: string): Promise<() => Promise<void>> {
  const server = createFloorProxy(upstream);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  return async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
}

/** Airlock as the proxy harness wires it: one fixed profile, anonymous identity, the sentinel key. */
async function startAirlock(upstream: string, withLog: boolean): Promise<() => Promise<void>> {
  const profile = profileSchema.parse({ id: 'bench', name: 'Bench gateway', baseUrl: `${upstream}/v1` });
  const proxy = await startServer({
    port: 0,
    services: {
      authenticator: { authenticate: () => ({ tokenName: 'bench', pinnedProfileId: null }) },
      targets: { resolve: () => ({ profile, apiKey: SENTINEL_KEY }) },
    },
  });
  const dataDir = withLog ? mkdtempSync(join(tmpdir(), 'airlock-bench-log-')) : null;
  const log = dataDir === null ? null : createRequestLog({ dataDir, knownSecrets: () => [SENTINEL_KEY] });
  log?.attach(proxy.events);
  console.log(`listening on ${proxy.url}`);
  return async () => {
    await proxy.stop();
    await log?.close();
    if (dataDir !== null) rmSync(dataDir, { recursive: true, force: true });
  };
}

const stop = values.kind === 'floor' ? await startFloor(upstreamUrl) : await startAirlock(upstreamUrl, values.log);
process.once('SIGTERM', () => {
  // exit() after stopping, so a --cpu-prof profile is written.
  void stop().finally(() => process.exit(0));
});
