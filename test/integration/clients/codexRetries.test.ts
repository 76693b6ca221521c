import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startGatewaySimulator, type GatewaySimulator } from '../../simulator/index.ts';
import { codexCli, installedVersion } from '../../support/clients/clientBinaries.ts';
import { createClientSandbox, offlineClientEnv, type ClientSandbox } from '../../support/clients/clientSandbox.ts';
import { codexConfigToml } from '../../support/clients/codexConfig.ts';
import { runCli, transcript, type CliResult } from '../../support/clients/runCli.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';

/**
 * Issue 18 item 10 with the real Codex and its own retries on: behind one failure it shows, the
 * gateway gets no more requests through Airlock than from Codex directly (before: Airlock's four
 * attempts behind each of Codex's).
 */

const CLI_TIMEOUT_MS = 45_000;
const TEST_TIMEOUT_MS = 90_000;
const TOKEN_ENV_VARIABLE = 'AIRLOCK_CLIENT_TOKEN';
const CODEX_RETRIES = 2;

let sandbox: ClientSandbox;
let harness: Harness | null = null;
let direct: GatewaySimulator | null = null;

beforeEach(async () => {
  sandbox = await createClientSandbox('codex');
});
afterEach(async () => {
  await sandbox.remove();
  await harness?.close();
  await direct?.close();
  harness = null;
  direct = null;
});

async function runCodexExec(rootUrl: string, token: string, home: string): Promise<CliResult> {
  const codexHome = join(sandbox.homeDir, home);
  await mkdir(codexHome);
  const config = codexConfigToml({
    proxyUrl: rootUrl,
    model: 'gpt-4o-mini',
    tokenEnvVariable: TOKEN_ENV_VARIABLE,
    maxRetries: CODEX_RETRIES,
  });
  await writeFile(join(codexHome, 'config.toml'), config);
  return runCli({
    cli: codexCli(),
    args: ['exec', '--strict-config', '--skip-git-repo-check', '--ephemeral', '--color', 'never', '--sandbox', 'read-only', 'Reply'],
    cwd: sandbox.workDir,
    env: offlineClientEnv(sandbox.homeDir, { CODEX_HOME: codexHome, [TOKEN_ENV_VARIABLE]: token }),
    timeoutMs: CLI_TIMEOUT_MS,
  });
}

const rateLimits = () => Array.from({ length: 20 }, () => ({ kind: 'status' as const, status: 429, retryAfterS: 1 }));

describe(`Codex CLI ${installedVersion('@openai/codex')} against a gateway that keeps answering 429`, () => {
  it(
    'makes the gateway no more requests through Airlock than directly',
    async () => {
      direct = await startGatewaySimulator();
      direct.script(...rateLimits());
      const alone = await runCodexExec(direct.url, SENTINEL_KEY, 'direct');
      expect(alone.exitCode, transcript(alone)).not.toBe(0);
      const withoutAirlock = direct.received.length;

      harness = await startHarness();
      harness.simulator.script(...rateLimits());
      const through = await runCodexExec(harness.proxy.url, 'alk_codex_client', 'airlock');
      expect(through.exitCode, transcript(through)).not.toBe(0);
      expect(withoutAirlock).toBeGreaterThan(1);
      expect(harness.simulator.received.length).toBeLessThanOrEqual(withoutAirlock);
    },
    TEST_TIMEOUT_MS,
  );
});
