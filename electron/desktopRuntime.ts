/**
 * The proxy as the desktop app runs it: the same composition root as `airlock serve`
 * (startAirlock), in the Electron main process, with keys read from the OS keychain here and
 * nowhere else.
 *
 * The proxy in-process rather than in a utilityProcess: the tray reads paused state, in-flight
 * count and lifecycle events directly without a mirrored state protocol. The cost is that the
 * proxy shares the main process's event loop; it is I/O-bound, its log writes are batched off the
 * request path, and the main process does little else. Only the keychain's calls are made in a
 * utility process (keychainUtility.ts): keytar cannot cancel a call that never returns, and one
 * held in the main process would keep the app from quitting.
 */
import { homedir } from 'node:os';
import { budgetProgress } from '../proxy/app/control/budgets.ts';
import type { BudgetProgress } from '../proxy/contracts/spend.ts';
import type { SwitchCheckResponse } from '../proxy/contracts/profileViews.ts';
import type { ConfigFile } from '../proxy/contracts/config.ts';
import type { ConnectService } from '../proxy/app/connect/connectService.ts';
import type { ConfigStore } from '../proxy/app/profiles/configStore.ts';
import { startAirlock } from '../proxy/app/startAirlock.ts';
import { dataDirArgument } from '../proxy/app/dataDir.ts';
import { secretStoreForDataDir, UnscopedKeyError } from '../proxy/app/secrets/dataDirSecrets.ts';
import {
  clientTokenAccount,
  KeychainNotAnsweringError,
  type KeychainUnavailableError,
  type SecretStore,
} from '../proxy/contracts/secretStore.ts';
import { keyAccountsOf } from '../proxy/contracts/keyPool.ts';
import type { KeyCache } from '../proxy/app/secrets/keyCache.ts';
import type { ProxyHandle } from '../proxy/http/startServer.ts';
import type { PausedClient } from './logic/appState.ts';
import type { Notice } from '../proxy/contracts/notices.ts';
import type { ConfigSource } from '../proxy/app/configOverlay.ts';
import { reachGatewaysThrough } from '../proxy/forward/upstreamAgents.ts';
import { proxyVariableSet, upstreamProxyFromEnv } from '../proxy/forward/upstreamProxy.ts';
import { systemProxyVariables } from './logic/systemProxy.ts';

export interface DesktopRuntime {
  proxy: ProxyHandle;
  config: ConfigStore;
  controlToken: string;
  /** Writes the tools' config files (the tray's Connect submenu). */
  connect: ConnectService;
  /** Every daily and monthly cap with its spend so far, for the 50/80/100% alerts. */
  budgets(): BudgetProgress[];
  /** Clients the burst guard paused (in memory, so cheap to read on every refresh). */
  pausedClients(): PausedClient[];
  /** Credits spent since a local day's start, from the request log (so neither a restart nor a new time zone resets the tray). */
  spentSince(dayStartMs: number): number;
  /** A client token to paste into a tool: the first one whose secret the keychain still holds. */
  readClientToken(): Promise<string | null>;
  /** What switching to the profile now would break (the window's switch-check), for the tray's warning. */
  switchCheck(profileId: string): Promise<SwitchCheckResponse>;
  /** What the proxy found at start and since, newest first, until dismissed in the window. */
  notices(): Notice[];
  onNoticesChange(listener: () => void): () => void;
  stop(drainMs: number): Promise<void>;
}

export interface DesktopRuntimeOptions {
  dataDir: string;
  port: number;
  /** The OS keychain (keychainUtility.ts, or a test's), read with the data directory's own accounts (secretStoreForDataDir). */
  keychain: SecretStore;
  /** The OS settings' proxy for a URL, in PAC's form (Electron's `session.resolveProxy`); none: the environment's only. */
  resolveProxy?: (url: string) => Promise<string>;
}

export async function startDesktopRuntime(options: DesktopRuntimeOptions): Promise<DesktopRuntime> {
  const secrets = secretStoreForDataDir(options.keychain, options.dataDir, {
    env: process.env,
    platform: process.platform,
    homedir: homedir(),
  });
  const host = { env: process.env, platform: process.platform, homedir: homedir(), cwd: process.cwd() };
  // Started with AIRLOCK_DATA_DIR, the app's suggested commands name that directory: pasted elsewhere, they would act on the default one.
  const airlock = await startAirlock({
    dataDir: options.dataDir,
    port: options.port,
    env: process.env,
    secrets,
    dataDirArgument: dataDirArgument(options.dataDir, host),
  });
  const resolveProxy = options.resolveProxy;
  // A proxy the environment names wins over the OS settings, as for the tools.
  if (resolveProxy !== undefined && proxyVariableSet(process.env) === null) followSystemProxy(airlock.config, resolveProxy);
  const keychainFailure = unusableKeychain(airlock.config.snapshot(), airlock.keys);
  if (keychainFailure !== null) {
    // The desktop app takes keys from the keychain only: without one it shows the fix instead.
    await airlock.stop();
    throw keychainFailure;
  }
  return {
    proxy: airlock.proxy,
    config: airlock.store,
    controlToken: airlock.controlToken,
    connect: airlock.connect,
    budgets: () => budgetProgress(airlock.config.snapshot(), (query) => airlock.log.spendSince(query), Date.now()),
    pausedClients: () => airlock.spendGate.pausedClients().map((pause) => ({ name: pause.clientName, reason: pause.reason })),
    spentSince: (dayStartMs) => airlock.log.totals({ fromMs: dayStartMs, toMs: Date.now() }).costCredits,
    readClientToken: () => firstClientToken(airlock.config.snapshot(), secrets),
    switchCheck: (profileId) => airlock.control.switchCheck(profileId),
    notices: () => airlock.noticeBoard.list(),
    onNoticesChange: (listener) => airlock.noticeBoard.onChange(listener),
    stop: async (drainMs) => {
      await airlock.stop({ drainMs });
    },
  };
}

/**
 * Gateways go where the OS settings send them, asked again when the profiles change (a new gateway
 * may be one the settings send elsewhere). Until the first answer, and if Chromium cannot answer,
 * they are reached directly, as without settings.
 */
function followSystemProxy(config: ConfigSource, resolveProxy: (url: string) => Promise<string>): void {
  let applied = '{}';
  const apply = async (): Promise<void> => {
    const { profiles, activeProfileId } = config.snapshot();
    const urls = [...profiles].sort((a, b) => Number(b.id === activeProfileId) - Number(a.id === activeProfileId)).map((p) => p.baseUrl);
    const gateways = await Promise.all(urls.map(async (url) => ({ url, pacAnswer: await resolveProxy(url) })));
    const variables = JSON.stringify(systemProxyVariables(gateways));
    // Only on a change: a new proxy closes the connections kept alive.
    if (variables === applied) return;
    applied = variables;
    reachGatewaysThrough(upstreamProxyFromEnv(JSON.parse(variables) as NodeJS.ProcessEnv).proxy);
  };
  const applyReporting = (): void => {
    apply().catch((error: unknown) => console.error(`[airlock] The OS proxy settings could not be read: ${(error as Error).message}`));
  };
  applyReporting();
  config.onChange(applyReporting);
}

/**
 * The keychain failed every key it was asked for, and not for want of time. One that has not answered
 * yet (an unlock prompt open) or refused only some keys leaves the app running with the window's
 * alarm: the keys are read as soon as it answers, where a failed start would need a restart. So does
 * a key held only under the account every data directory shares: the alarm names the way to set it.
 */
function unusableKeychain(snapshot: ConfigFile, keys: KeyCache): KeychainUnavailableError | null {
  const problems = snapshot.profiles.flatMap(keyAccountsOf).map((account) => keys.unreadProblem([account]));
  const [first] = problems;
  if (!first || !isKeychainFailure(first)) return null;
  return problems.every((problem) => problem !== null && isKeychainFailure(problem)) ? first : null;
}

function isKeychainFailure(problem: KeychainUnavailableError): boolean {
  return !(problem instanceof KeychainNotAnsweringError) && !(problem instanceof UnscopedKeyError);
}

async function firstClientToken(snapshot: ConfigFile, secrets: SecretStore): Promise<string | null> {
  for (const record of snapshot.clientTokens) {
    const token = await secrets.get(clientTokenAccount(record.name));
    if (token) return token;
  }
  return null;
}
