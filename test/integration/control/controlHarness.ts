import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createClientAuthenticator } from '../../../proxy/access/clientAuthenticator.ts';
import { createTargetResolver } from '../../../proxy/access/targetResolver.ts';
import { createCapabilityService, type CapabilityService } from '../../../proxy/capabilities/capabilityService.ts';
import { createSpendGate } from '../../../proxy/budget/spendGate.ts';
import { SpendLedger } from '../../../proxy/budget/spendLedger.ts';
import { createControlRouter, type ControlApi } from '../../../proxy/control/createControlRouter.ts';
import { RequestEvents } from '../../../proxy/events/requestEvents.ts';
import { createRequestLog, type RequestLog } from '../../../proxy/log/requestLog.ts';
import { isLocalRefusal } from '../../../proxy/pipeline/services.ts';
import { openConfigStore, type ConfigStore } from '../../../proxy/profiles/configStore.ts';
import { KeyCache } from '../../../proxy/secrets/keyCache.ts';
import type { SecretStore } from '../../../proxy/secrets/secretStore.ts';
import { startServer, type ProxyHandle } from '../../../proxy/server/startServer.ts';
import { startGatewaySimulator, type GatewaySimulator, type SimulatorOptions } from '../../simulator/index.ts';
import { memorySecretStore } from '../../unit/secrets/memorySecretStore.ts';

export const CONTROL_TOKEN = 'alkc_control-token-for-tests-0123456789abcdef';

export interface ControlHarnessOptions {
  simulator?: SimulatorOptions;
  /** The built window to serve; tests of the API alone pass a directory without one. */
  uiDir?: string;
}

export interface ControlHarness {
  proxy: ProxyHandle;
  simulator: GatewaySimulator;
  control: ControlApi;
  store: ConfigStore;
  keys: KeyCache;
  secrets: SecretStore;
  log: RequestLog;
  capabilities: CapabilityService;
  dataDir: string;
  /** `fetch` against the control API with the control token. */
  api(pathAndQuery: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

/**
 * The proxy wired the way `airlock serve` wires it (profile file, key cache, log, spend gate,
 * capability check, control API), with an in-memory keychain and a simulator as the gateway.
 */
export async function startControlHarness(options: ControlHarnessOptions = {}): Promise<ControlHarness> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-control-'));
  const simulator = await startGatewaySimulator(options.simulator);
  const store = openConfigStore(dataDir);
  const secrets = memorySecretStore();
  const keys = new KeyCache(secrets);
  const following = keys.follow(store);
  await following.ready;
  const log = createRequestLog({ dataDir, knownSecrets: () => [...keys.secretsForMasking(), CONTROL_TOKEN] });
  const spendGate = createSpendGate({ ledger: new SpendLedger(), clientBudget: (name) => store.snapshot().clientTokens.find((token) => token.name === name)?.budget });
  const targets = createTargetResolver(store, keys);
  const capabilities = createCapabilityService({
    dataDir,
    resolveTarget: (profileId) => {
      const target = targets.resolve({ tokenName: null, pinnedProfileId: profileId });
      return isLocalRefusal(target) ? null : target;
    },
  });
  const control = createControlRouter({
    controlToken: CONTROL_TOKEN,
    config: store,
    keys,
    secrets,
    targets,
    log,
    spendGate,
    capabilities,
    uiDir: options.uiDir ?? path.join(dataDir, 'no-ui'),
  });
  const proxy = await startServer({
    port: 0,
    events: new RequestEvents(),
    services: { authenticator: createClientAuthenticator(store), targets, spendGate },
    nativeVerified: (profileId, protocol, model) => capabilities.nativeVerified(profileId, protocol, model),
    controlRouter: control.router,
  });
  control.attach(proxy);
  const detachLog = log.attach(proxy.events);

  return {
    proxy,
    simulator,
    control,
    store,
    keys,
    secrets,
    log,
    capabilities,
    dataDir,
    api: (pathAndQuery, init = {}) =>
      fetch(`${proxy.url}/_airlock/api${pathAndQuery}`, {
        ...init,
        headers: { authorization: `Bearer ${CONTROL_TOKEN}`, ...(init.body ? { 'content-type': 'application/json' } : {}), ...init.headers },
      }),
    async close() {
      control.close();
      await proxy.stop();
      detachLog();
      following.stop();
      store.close();
      await log.close();
      await simulator.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
