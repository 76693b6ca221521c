import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { profileSchema } from '../../proxy/contracts/profile.ts';
import { createRequestLog } from '../../proxy/log/requestLog.ts';
import { startServer } from '../../proxy/server/startServer.ts';
import { SENTINEL_KEY } from '../support/sentinel.ts';

/**
 * Airlock as the proxy harness wires it: one fixed profile, anonymous identity, the sentinel key;
 * with `withLog`, the SQLite request log in a temporary data directory. Returns its URL and stop.
 */
export async function startAirlock(upstreamUrl: string, withLog: boolean): Promise<{ url: string; stop(): Promise<void> }> {
  const profile = profileSchema.parse({ id: 'bench', name: 'Bench gateway', baseUrl: `${upstreamUrl}/v1` });
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
  return {
    url: proxy.url,
    async stop() {
      await proxy.stop();
      await log?.close();
      if (dataDir !== null) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
