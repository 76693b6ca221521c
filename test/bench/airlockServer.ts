import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSpendGate } from '../../proxy/spend/spendGate.ts';
import { SpendLedger } from '../../proxy/spend/spendLedger.ts';
import { profileSchema } from '../../proxy/contracts/profile.ts';
import { emptyConfig } from '../../proxy/contracts/config.ts';
import { createClientAuthenticator } from '../../proxy/http/clientAuthenticator.ts';
import { tokenRecord } from '../../proxy/http/clientTokens.ts';
import { createRequestLog } from '../../proxy/store/requestLog.ts';
import { startServer } from '../../proxy/http/startServer.ts';
import { SENTINEL_KEY } from '../support/sentinel.ts';
import { PLAIN_HINT } from '../../proxy/contracts/cli.ts';

/**
 * Airlock as the app wires its proxy, minus files and keychain: one fixed profile with no budget
 * cap, client tokens required and checked as the app checks them, the sentinel key, the spend gate
 * (burst guard, breaker, budgets) every request passes; with `withLog`, the SQLite request log in a
 * temporary data directory. The client token is the string the load generator sends to every
 * target (the sentinel key, which the direct simulator and the floors pass on): Airlock hashes and
 * compares it like any token, then sends the gateway key in its place. With `clientToken: false`,
 * every request is the client 'bench' without a check, as Airlock ran in the bench before client
 * tokens (c7ee941), so a comparison against that commit pairs like with like (baseline.ts). `logDir`:
 * the log's data directory, for a bench that reads the log (logSqlFloor.ts); removed at stop either way.
 */
export async function startAirlock(
  upstreamUrl: string,
  withLog: boolean,
  options: { clientToken: boolean; backlogMiB?: number; logDir?: string } = { clientToken: true },
): Promise<{ url: string; flushLog(): Promise<void>; stop(): Promise<void> }> {
  const config = { ...emptyConfig(), clientTokens: [tokenRecord('bench', SENTINEL_KEY, null, 0)] };
  const profile = profileSchema.parse({ id: 'bench', name: 'Bench gateway', baseUrl: `${upstreamUrl}/v1` });
  const proxy = await startServer({
    commandHint: PLAIN_HINT,
    port: 0,
    services: {
      authenticator: options.clientToken
        ? createClientAuthenticator({ snapshot: () => config })
        : { authenticate: () => ({ tokenName: 'bench', pinnedProfileId: null }) },
      targets: { resolve: () => ({ profile, apiKey: SENTINEL_KEY }) },
      // The bench's rates are far past the default burst limit, which pauses a runaway agent.
      spendGate: createSpendGate({
        commandHint: PLAIN_HINT,
        ledger: new SpendLedger(),
        clientBudget: () => undefined,
        burstGuard: { maxRequests: Number.POSITIVE_INFINITY },
      }),
    },
  });
  const dataDir = withLog ? (options.logDir ?? mkdtempSync(join(tmpdir(), 'airlock-bench-log-'))) : null;
  const log =
    dataDir === null
      ? null
      : createRequestLog({
          dataDir,
          knownSecrets: () => [SENTINEL_KEY],
          ...(options.backlogMiB === undefined ? {} : { backlogBytes: () => (options.backlogMiB as number) * 1024 * 1024 }),
          // As `airlock serve` says it: when the log falls behind a saturating load, and catches up.
          onRecordingChange: (message) => console.error(`[airlock] request log: ${message}`),
        });
  log?.attach(proxy.events);
  return {
    url: proxy.url,
    flushLog: async () => log?.flush(),
    async stop() {
      await proxy.stop();
      await log?.close();
      if (dataDir !== null) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
