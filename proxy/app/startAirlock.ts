import { homedir } from 'node:os';
import path from 'node:path';
import { DEFAULT_HOST } from '../contracts/defaults.ts';
import { bodyCaptureBytes, CONFIG_FILE_NAME, logBacklogBytes, MAX_BODY_CAPTURE_BYTES } from '../contracts/config.ts';
import { createClientAuthenticator } from '../http/clientAuthenticator.ts';
import { ControlTokens, followKeychainControlToken, loadControlToken } from '../http/controlToken.ts';
import { ReplayGrants, withReplayGrants } from '../http/replayGrants.ts';
import { createTargetResolver } from './targetResolver.ts';
import { burstGuardOptionsFrom } from '../spend/burstGuard.ts';
import { createSpendGate, type SpendGateControl } from '../spend/spendGate.ts';
import { KeyPools } from '../spend/keyPool.ts';
import { SpendLedger } from '../spend/spendLedger.ts';
import { seedLedger, seedScopesAddedLater } from './ledgerScopes.ts';
import { createCapabilityService, type CapabilityService } from './capabilities/capabilityService.ts';
import { keepReasoningEffortRefusals } from './capabilities/reasoningEffortFile.ts';
import { keepMaxTokensRefusals } from './capabilities/maxTokensFile.ts';
import { createControlRouter, type ControlApi } from './control/createControlRouter.ts';
import { SESSIONS_FILE_NAME } from './control/sessionFile.ts';
import { RequestEvents } from '../contracts/requestEvents.ts';
import { isLocalRefusal } from '../contracts/ports.ts';
import type { LogRecoveryReport } from '../store/logRecovery.ts';
import { createRequestLog, type RequestLog } from '../store/requestLog.ts';
import { requireProfile } from './profiles/configMutations.ts';
import { openConfigStore, type ConfigStore } from './profiles/configStore.ts';
import { EnvKeySource } from './secrets/envKeySource.ts';
import { KeyCache } from './secrets/keyCache.ts';
import { TraceHeaderCache } from './secrets/traceHeaderCache.ts';
import { knownSecretsFrom } from './secrets/knownSecrets.ts';
import { createKeytarSecretStore } from './secrets/keytarStore.ts';
import { secretStoreForDataDir } from './secrets/dataDirSecrets.ts';
import type { SecretStore } from '../contracts/secretStore.ts';
import type { StopReport } from '../forward/shutdown.ts';
import { startServer, type ProxyHandle } from '../http/startServer.ts';
import { COMMAND_LINE_PROFILE_ID, overlayConfig, type ConfigSource } from './configOverlay.ts';
import { ConnectService } from './connect/connectService.ts';
import { lockDataDir, type DataDirLock } from './dataDirLock.ts';
import { asDataDirError } from './dataDir.ts';
import { followTraceExport } from './export/traceExport.ts';
import { makeDataDirPrivate } from './privateDataDir.ts';
import { requestLogFailureCause, requestLogNoticeKind, type NoticeBoard } from './noticeBoard.ts';
import { runNotices } from './runNotices.ts';
import { followOsTimeZone } from './osZoneFollow.ts';
import { type CommandHint, commandHint, shellOf } from '../contracts/cli.ts';
import { keyedCreationsCache } from './keyedCreations.ts';
import { openSeededLog } from './seededLog.ts';
import { onProcessProblem } from '../core/processProblems.ts';
import { reachGatewaysThrough } from '../forward/upstreamAgents.ts';
import { upstreamProxyFromEnv } from '../forward/upstreamProxy.ts';
import { toolsThroughProxyWarning } from './connect/toolsProxyBypass.ts';

export interface AirlockOptions {
  dataDir: string;
  port: number;
  env: NodeJS.ProcessEnv;
  /** Serve this profile for this run, whatever the file marks active; an unknown id is refused. */
  profileId?: string;
  /** A normalised base URL for a one-run profile (its key from AIRLOCK_API_KEY). */
  commandLineBaseUrl?: string;
  /** The keychain as this data directory sees it; by default the OS keychain, with the data directory's own accounts (secretStoreForDataDir). */
  secrets?: SecretStore;
  uiDir?: string;
  /** A hard limit on the request log's database; past it writes fail as on a full disk. None by default. */
  maxLogBytes?: number;
  /** Where Connect finds the tools' config files; the user's home by default. */
  homeDir?: string;
  /** How a paused run is resumed, named as the run names its commands (ServerOptions.resumeWay); the desktop app's way unless given. */
  resumeWay?: (hint: CommandHint) => string;
  /**
   * The `--data-dir` every command it suggests carries (refusals, the control API's errors): `serve`'s
   * own when not the default (cli/commands/cliContext.ts dataDirArgument); none unless given.
   */
  dataDirArgument?: string | null;
}

export interface Airlock {
  proxy: ProxyHandle;
  config: ConfigSource;
  store: ConfigStore;
  keys: KeyCache;
  log: RequestLog;
  spendGate: SpendGateControl;
  capabilities: CapabilityService;
  control: ControlApi;
  /** Writes the tools' config files (window, tray). */
  connect: ConnectService;
  /** Opens the control API (and the window); never a client token. */
  controlToken: string;
  /** Things the user should know at start (no keychain, broken config file, a damaged log set aside), as `airlock serve` prints them. */
  notices: string[];
  /** Those and what goes wrong while running, for the window and the desktop notifications. */
  noticeBoard: NoticeBoard;
  /** The request log was damaged and set aside at this start; null when it was sound. */
  logRecovery: LogRecoveryReport | null;
  /** Stops the proxy (see ProxyHandle.stop), then writes every row still queued and closes the log; once, however often called. */
  stop(options?: { drainMs?: number }): Promise<StopReport>;
}

/**
 * The composition root shared by `airlock serve` and the desktop app: the profile file, the
 * keychain, the log, the spend gate, the control API and the proxy, wired once. The data
 * directory is locked to this process first (DataDirInUseError if another Airlock has it).
 */
export async function startAirlock(options: AirlockOptions): Promise<Airlock> {
  let privacyProblems: string[];
  let dataDirLock: DataDirLock;
  try {
    privacyProblems = makeDataDirPrivate(options.dataDir);
    dataDirLock = lockDataDir(options.dataDir);
  } catch (error) {
    throw asDataDirError(options.dataDir, error);
  }
  try {
    const airlock = await startWithDataDir(options, privacyProblems);
    // One stop however often it is asked for (SIGINT then SIGTERM): a second run closed the log
    // under the first and failed, and `airlock serve` exits at once on a failed stop.
    let stopping: Promise<StopReport> | null = null;
    return {
      ...airlock,
      stop(stopOptions) {
        stopping ??= airlock.stop(stopOptions).then((report) => {
          dataDirLock.release();
          return report;
        });
        return stopping;
      },
    };
  } catch (error) {
    dataDirLock.release();
    throw error;
  }
}

async function startWithDataDir(options: AirlockOptions, privacyProblems: string[]): Promise<Airlock> {
  const said = runNotices(options.dataDir, privacyProblems);
  const { lines: notices, board: noticeBoard, notice, tell } = said;
  const tellUnexpectedError = (message: string): void => tell('unexpected_error', message);
  // The port given may be 0 (tests): the commands name the one the proxy listens on, once it does.
  // Masked as the notices are: the data directory's path may hold a key, and refusals reach any client.
  let listeningPort = options.port;
  const hint = commandHint(options.dataDirArgument ?? null, {
    port: () => listeningPort,
    mask: said.mask,
    shell: shellOf(process.platform),
  });
  const store = openConfigStore(options.dataDir, { watch: true, command: hint.command });
  if (options.profileId) {
    try {
      requireProfile(store.snapshot(), options.profileId);
    } catch (error) {
      store.close();
      throw error;
    }
  }
  // A file that does not validate is the window's alarm already (config_invalid); serve prints it here.
  const fileProblem = store.problem();
  if (fileProblem) notices.push(fileProblem);
  else notice('config_file', store.startNotice());
  notice('config_newer', store.newerFieldsNotice());
  // `airlock serve` has no window: a hand edit it refuses (or its fix) is said on stderr as it happens.
  store.onProblemChange((problem) =>
    console.error(`[airlock] ${problem ?? `${CONFIG_FILE_NAME} is valid again; its settings are in use.`}`),
  );
  const config = overlayConfig(store, {
    ...(options.profileId ? { activeProfileId: options.profileId } : {}),
    ...(options.commandLineBaseUrl ? { commandLineBaseUrl: options.commandLineBaseUrl } : {}),
  });
  const secrets =
    options.secrets ??
    secretStoreForDataDir(createKeytarSecretStore(), options.dataDir, {
      env: options.env,
      platform: process.platform,
      homedir: options.homeDir ?? homedir(),
    });
  const keys = new KeyCache(secrets);
  const following = keys.follow(config);
  await following.ready;
  const envProfileId = options.commandLineBaseUrl ? COMMAND_LINE_PROFILE_ID : config.snapshot().activeProfileId;
  const envKey = envProfileId ? EnvKeySource.fromEnvironment(options.env, envProfileId) : null;
  // Set before the keychain's problem is read: with a key from the environment it no longer asks for one.
  keys.setEnvironmentKey(envKey);
  let keychainProblem = keys.keychainProblem();
  notice('keychain_unavailable', keychainProblem);
  // Keys that cannot be read (a keychain helper that cannot start) are said when it happens, and when they are read again.
  const stopKeychainNews = keys.onChange(() => {
    const problem = keys.keychainProblem();
    if (problem !== null && problem !== keychainProblem) tell('keychain_unavailable', problem);
    if (keychainProblem !== null && problem === null) {
      noticeBoard.resolve('keychain_unavailable');
      console.error('[airlock] The OS keychain answered: the gateway keys are read.');
    }
    keychainProblem = problem;
  });
  const proxySetting = upstreamProxyFromEnv(options.env);
  reachGatewaysThrough(proxySetting.proxy);
  // Said at start only (serve's lines) while a proxy is in use: a notice would notify the desktop at
  // every login behind it. A notice where no proxy could be used of those the environment names.
  const proxyProblems = proxySetting.problems.length > 0 ? proxySetting.problems.map((problem) => `${problem}.`).join(' ') : null;
  if (proxySetting.proxy !== null) notices.push([proxySetting.proxy.description, proxyProblems].filter(Boolean).join(' '));
  else notice('upstream_proxy', proxyProblems);
  notice('tools_through_proxy', toolsThroughProxyWarning(options.env));
  if (envKey) notice('environment_key', `Using the gateway key from AIRLOCK_API_KEY for profile "${envKey.profileId}" for this run only.`);
  const controlToken = await loadControlToken(secrets);
  const controlTokens = new ControlTokens(controlToken.token, controlToken.persisted);
  // A keychain that did not answer at start: the CLI's token (the one it holds) works once it answers.
  const stopFollowingControlToken = followKeychainControlToken(secrets, controlToken, controlTokens);
  const traceHeaders = new TraceHeaderCache(secrets, hint);
  const followingTraceHeaders = traceHeaders.follow(config);
  // Read before the log starts, so it masks them from the first row; the export reports what is missing.
  await followingTraceHeaders.ready;

  const knownSecrets = knownSecretsFrom({
    gatewayKeys: () => keys.secretsForMasking(),
    controlTokens: () => controlTokens.all(),
    traceHeaderValues: () => traceHeaders.values(),
    env: options.env,
  });
  said.maskWith(knownSecrets);
  const ledger = new SpendLedger();
  const opened = await openSeededLog({
    dataDir: options.dataDir,
    open: (onError, logDir) =>
      createRequestLog({
        dataDir: logDir,
        ...(options.maxLogBytes === undefined ? {} : { maxDbBytes: options.maxLogBytes }),
        knownSecrets,
        backlogBytes: () => logBacklogBytes(config.snapshot().settings.memoryLimits),
        // The capture (bodyCaptureKiB, read per request) cuts bodies; the log thread's cut is only a backstop.
        bodyCapBytes: MAX_BODY_CAPTURE_BYTES,
        onError,
        onRecordingChange: (message) => console.error(`[airlock] request log: ${message}`),
      }),
    seed: (opening) => seedLedger(ledger, config, opening),
    tellFailure: (error) => tell(requestLogNoticeKind(error), requestLogFailureCause(error)),
    notices: noticeBoard,
  });
  const { log, recovery: logRecovery } = opened;
  notice('log_recovered', logRecovery?.message ?? null);
  notice('log_start', opened.startNotice);
  notice('log_newer', opened.newerLogNotice);
  const stopFollowingZone = followOsTimeZone(ledger, log);
  const stopSeedingAdded = seedScopesAddedLater(ledger, config, log);
  const spendGate = createSpendGate({
    ledger,
    ledgerGap: (nowMs) => log.ledgerGap(nowMs),
    clientBudget: (name) => config.snapshot().clientTokens.find((token) => token.name === name)?.budget,
    profileNow: (profileId) => config.snapshot().profiles.find((profile) => profile.id === profileId),
    burstGuard: () => burstGuardOptionsFrom(config.snapshot().settings.burstLimits),
    commandHint: hint,
  });
  const keyPools = new KeyPools({}, hint.command);
  const targets = createTargetResolver(config, keys, envKey, keyPools, hint.command);
  const capabilities = createCapabilityService({
    dataDir: options.dataDir,
    resolveTarget: (profileId) => {
      const target = targets.resolve({ tokenName: null, pinnedProfileId: profileId });
      return isLocalRefusal(target) ? null : target;
    },
    report: (message) => tell('capabilities_not_saved', message),
  });
  notice('capabilities_file', capabilities.startNotice);
  const reasoningEfforts = keepReasoningEffortRefusals(options.dataDir, (message) => tell('reasoning_efforts_not_saved', message));
  notice('reasoning_efforts_file', reasoningEfforts.notice);
  const maxTokens = keepMaxTokensRefusals(options.dataDir, (message) => tell('max_tokens_not_saved', message));
  notice('max_tokens_file', maxTokens.notice);
  let proxyUrl = `http://${DEFAULT_HOST}:${options.port}`;
  const connect = new ConnectService({
    homeDir: options.homeDir ?? homedir(),
    env: options.env,
    dataDir: options.dataDir,
    config: { snapshot: () => config.snapshot(), update: (mutator) => store.update(mutator) },
    secrets,
    proxyUrl: () => proxyUrl,
    nowMs: Date.now,
    knownSecrets,
  });
  const replayGrants = new ReplayGrants();
  const control = createControlRouter({
    controlToken: controlTokens,
    config: {
      snapshot: () => config.snapshot(),
      update: (mutator) => store.update(mutator),
      problem: () => store.problem(),
      onProblemChange: (listener) => store.onProblemChange(listener),
      onChange: (listener) => store.onChange(() => listener()),
    },
    keys,
    keyPools,
    secrets,
    traceHeaders,
    knownSecrets,
    targets,
    log,
    spendGate,
    capabilities,
    connect,
    replayGrants,
    sessionsFile: path.join(options.dataDir, SESSIONS_FILE_NAME),
    startupAlarms: logRecovery ? [{ kind: 'log_recovered', message: logRecovery.message }] : [],
    notices: noticeBoard,
    reportUnexpectedError: tellUnexpectedError,
    commandHint: hint,
    ...(options.uiDir ? { uiDir: options.uiDir } : {}),
  });
  const events = new RequestEvents();
  // The tokenizer and translation threads and the OS certificate store are the process's, used by
  // requests: heard from here (nothing was sent before) until this run stops.
  const stopHearingProcessProblems = onProcessProblem(tell);
  /** Ends what this start began around the server, whether the server started or failed to. */
  const stopServices = async (): Promise<void> => {
    stopFollowingZone();
    stopSeedingAdded();
    control.close();
    following.stop();
    stopKeychainNews();
    stopFollowingControlToken();
    followingTraceHeaders.stop();
    stopHearingProcessProblems();
    store.close();
    await log.close();
  };
  const proxy = await startServer({
    port: options.port,
    events,
    services: {
      authenticator: withReplayGrants(
        createClientAuthenticator(config, hint.command, () => store.problem()),
        replayGrants,
        hint.runningCommand,
      ),
      targets,
      spendGate,
    },
    nativeVerified: (profileId, protocol, model) => capabilities.nativeVerified(profileId, protocol, model),
    reasoningEffortRefusals: reasoningEfforts.refusals,
    maxTokensRefusals: maxTokens.refusals,
    captureLimitBytes: () => bodyCaptureBytes(config.snapshot().settings.memoryLimits),
    controlRouter: control.router,
    reportUnexpectedError: tellUnexpectedError,
    idempotency: keyedCreationsCache(log.idempotencyStore, tell),
    ...(options.resumeWay ? { resumeWay: options.resumeWay } : {}),
    commandHint: hint,
    listenerFaults: said.listenerFaults,
  }).catch(async (error: unknown) => {
    await stopServices();
    throw error;
  });
  proxyUrl = proxy.url;
  listeningPort = proxy.port;
  if (proxy.ipv6LoopbackTaken) {
    notice(
      'localhost_taken',
      `Another program listens on [::1]:${proxy.port}, where localhost often leads first: a tool pointed at http://localhost:${proxy.port} may send its requests, its key or client token with them, to that program rather than Airlock.`,
    );
  }
  const detachLog = log.attach(proxy.events);
  const traceExport = followTraceExport({
    config,
    events: proxy.events,
    report: (message, outcome) => {
      if (outcome !== 'working') return tell('trace_export_failed', message);
      noticeBoard.resolve('trace_export_failed');
      console.error(`[airlock] ${message}`);
    },
    knownSecrets,
    headers: (settings) => traceHeaders.valuesFor(settings),
    onHeadersReread: (listener) => traceHeaders.onValuesReread(listener),
    command: hint.command,
  });
  control.attach(proxy);
  return {
    proxy,
    config,
    store,
    keys,
    log,
    spendGate,
    capabilities,
    control,
    connect,
    controlToken: controlToken.token,
    notices,
    noticeBoard,
    logRecovery,
    async stop(stopOptions) {
      const report = await proxy.stop(stopOptions);
      await traceExport.stop();
      detachLog();
      await stopServices();
      return report;
    },
  };
}
