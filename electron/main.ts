/**
 * The Electron main process: one instance, the proxy in-process (see desktopRuntime.ts for why),
 * the tray, and one window showing the proxy's own UI. Decisions live in ./logic (unit-tested);
 * this file only connects them to Electron.
 */
import { homedir } from 'node:os';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { app, clipboard, dialog, Notification, session } from 'electron';
import { setActiveProfile, updateSettings } from '../proxy/app/profiles/configMutations.ts';
import { resolveDataDir } from '../proxy/app/dataDir.ts';
import { GLIBC_MALLOC_ENV, runtimeGlibcVersion } from '../proxy/app/cli/glibcMalloc.ts';
import { emptyConfig } from '../proxy/contracts/config.ts';
import { DEFAULT_PORT } from '../proxy/contracts/defaults.ts';
import { startOfLocalDayMs } from '../proxy/core/localPeriods.ts';
import { type DesktopRuntime, startDesktopRuntime } from './desktopRuntime.ts';
import { registerIpcHandlers } from './ipcHandlers.ts';
import { createKeychainUtilityStore } from './keychainUtility.ts';
import type { BudgetProgress } from '../proxy/contracts/spend.ts';
import type { AppState } from './logic/appState.ts';
import { composeAppState, portFromEnv } from './logic/composeState.ts';
import { summarizeConnectTools } from './logic/connectMenu.ts';
import { linuxAutostartEntry, linuxAutostartPath, startAtLoginMethod } from './logic/loginItem.ts';
import { classifyStartupError, drainThenQuit, startupProblemView } from './logic/lifecycle.ts';
import { appUiUrl, DEFAULT_EXTERNAL_ORIGINS, gatewayOrigins } from './logic/navigation.ts';
import { planMemoryRelaunch } from './logic/memoryLaunch.ts';
import { decideNotifications } from './logic/notifications.ts';
import { decideNoticeNotifications } from './logic/noticeNotifications.ts';
import { problemPageDataUrl } from './logic/problemPage.ts';
import { applyFinishedRequest, emptyTrafficState, rollDay, type TrafficState } from './logic/trafficState.ts';
import { switchFromTray } from './logic/traySwitch.ts';
import type { TrayAction } from './logic/trayMenu.ts';
import type { TrayIconState } from './logic/trayState.ts';
import { MainWindow, hardenSession } from './mainWindow.ts';
import { TrayController } from './trayController.ts';

const PRODUCT_NAME = app.getName();
const HIDDEN_AT_LOGIN_ARG = '--hidden';
const distDir = fileURLToPath(new URL('.', import.meta.url));

let runtime: DesktopRuntime | null = null;
let proxyStatus: AppState['proxy'] = { status: 'starting', port: DEFAULT_PORT };
let traffic: TrafficState = emptyTrafficState(startOfLocalDayMs(Date.now()));
let alarmKeys: ReadonlySet<string> = new Set();
/** null until the window's first showing is decided: the start notices notify only if it stays closed (opened at login). */
let noticeIds: ReadonlySet<string> | null = null;
let quitting = false;
let tray: TrayController | null = null;
let connectTools: AppState['connectTools'] = [];
let budgets: BudgetProgress[] = [];
let budgetsReadAtMs = 0;
/** Each read asks the log once per cap; at most this often while requests keep finishing. */
const BUDGET_READ_INTERVAL_MS = 5_000;

const proxyOrigin = (): string | null => (proxyStatus.status === 'serving' || proxyStatus.status === 'paused' ? proxyStatus.origin : null);
const externalOrigins = (): string[] => [
  ...DEFAULT_EXTERNAL_ORIGINS,
  ...gatewayOrigins((runtime?.config.snapshot().profiles ?? []).map((profile) => profile.baseUrl)),
];

const mainWindow = new MainWindow({
  preloadPath: join(distDir, 'preload.cjs'),
  productName: PRODUCT_NAME,
  devToolsEnabled: !app.isPackaged,
  proxyOrigin,
  externalOrigins,
  appIsQuitting: () => quitting,
});

function currentState(): AppState {
  const config = runtime?.config.snapshot() ?? emptyConfig();
  return composeAppState(proxyStatus, config, traffic, connectTools, budgets, runtime?.pausedClients() ?? []);
}

/** The URL the window should show now: the UI, or the problem page when the proxy did not start. */
function windowUrl(): string {
  const origin = proxyOrigin();
  if (origin !== null) return appUiUrl(origin);
  const problem = proxyStatus.status === 'failed' ? proxyStatus.problem : { kind: 'unknown' as const, detail: 'Airlock is still starting' };
  return problemPageDataUrl(startupProblemView(problem, proxyStatus.port), PRODUCT_NAME);
}

/** Re-reads the caps' spend when the last read is older than the interval (or when forced). */
function readBudgets(force: boolean): void {
  const nowMs = Date.now();
  if (!runtime || (!force && nowMs - budgetsReadAtMs < BUDGET_READ_INTERVAL_MS)) return;
  budgetsReadAtMs = nowMs;
  try {
    budgets = runtime.budgets();
  } catch (error) {
    console.error('[airlock] reading the budgets failed:', error instanceof Error ? error.message : 'unknown error');
  }
}

function refresh(): void {
  readBudgets(false);
  const state = currentState();
  tray?.render(state);
  const decision = decideNotifications(alarmKeys, state);
  alarmKeys = decision.activeAlarmKeys;
  const notices =
    noticeIds === null
      ? null
      : decideNoticeNotifications(noticeIds, runtime?.notices() ?? [], {
          windowShown: mainWindow.isShown(),
          notificationsEnabled: state.notificationsEnabled,
        });
  noticeIds = notices?.seenIds ?? null;
  if (Notification.isSupported())
    for (const notice of [...decision.notices, ...(notices?.notifications ?? [])])
      new Notification({ title: notice.title, body: notice.body }).show();
}

/** Re-reads which tools' configs exist and point at Airlock (the files can change behind the app's back). */
async function refreshConnectTools(): Promise<void> {
  if (!runtime) return;
  try {
    connectTools = summarizeConnectTools((await runtime.connect.list()).tools);
  } catch (error) {
    console.error('[airlock] reading the tools for Connect failed:', error instanceof Error ? error.message : 'unknown error');
  }
  refresh();
}

function notify(title: string, body: string): void {
  if (Notification.isSupported()) new Notification({ title, body }).show();
}

/** A Connect action from the tray: its outcome (or its refusal, which says the fix) as a notification. */
async function runConnectAction(action: Extract<TrayAction, { kind: 'connectTool' | 'undoConnect' }>): Promise<void> {
  if (!runtime) return;
  const title = connectTools.find((tool) => tool.id === action.tool)?.title ?? action.tool;
  try {
    if (action.kind === 'connectTool') {
      const applied = await runtime.connect.apply(action.tool);
      notify(`${title} now uses Airlock`, `Client token "${applied.tokenName}" written; undo from the tray or the window.`);
    } else {
      await runtime.connect.undo(action.tool);
      notify(`${title} setup undone`, 'Its config file is back as it was before Airlock wrote it.');
    }
  } catch (error) {
    notify(`${title}: Connect failed`, error instanceof Error ? error.message : 'unknown error');
  }
  await refreshConnectTools();
}

function trayIconPath(state: TrayIconState): string {
  // macOS menu bars want monochrome template images; Electron picks the @2x file on HiDPI.
  const name = process.platform === 'darwin' ? `tray-${state}Template.png` : `tray-${state}.png`;
  return join(app.getAppPath(), 'build', 'icons', 'tray', name);
}

function setStartAtLogin(enabled: boolean): void {
  if (startAtLoginMethod(process.platform) === 'xdg-autostart') {
    const entryPath = linuxAutostartPath(process.env, homedir());
    try {
      if (!enabled) rmSync(entryPath, { force: true });
      else {
        mkdirSync(dirname(entryPath), { recursive: true });
        const appArgs = app.isPackaged ? [HIDDEN_AT_LOGIN_ARG] : [app.getAppPath(), HIDDEN_AT_LOGIN_ARG];
        writeFileSync(
          entryPath,
          linuxAutostartEntry({ productName: PRODUCT_NAME, execPath: process.execPath, appImagePath: process.env.APPIMAGE, appArgs }),
        );
      }
    } catch (error) {
      notify('Start at login not changed', error instanceof Error ? error.message : 'unknown error');
      return;
    }
  } else {
    app.setLoginItemSettings({ openAtLogin: enabled, args: [HIDDEN_AT_LOGIN_ARG] });
  }
  void runtime?.config.update((config) => updateSettings(config, { startAtLogin: enabled }));
}

/** A switch from the tray (logic/traySwitch.ts); any outcome but a switch puts the radio mark back and says why. */
async function switchProfile(profileId: string): Promise<void> {
  const started = runtime;
  if (!started) return;
  const outcome = await switchFromTray(profileId, {
    profileName: (id) => started.config.snapshot().profiles.find((profile) => profile.id === id)?.name ?? null,
    switchCheck: (id) => started.switchCheck(id),
    confirm: async (warning) => {
      const { response } = await dialog.showMessageBox({
        type: 'warning',
        message: warning.message,
        detail: warning.detail,
        buttons: warning.buttons,
        defaultId: 1,
        cancelId: 1,
      });
      return response === 0;
    },
    activate: async (id) => {
      await started.config.update((config) => setActiveProfile(config, id));
    },
  });
  if (outcome.kind === 'switched') return;
  // The menu already moved its radio mark to the clicked profile: put it back.
  tray?.render(currentState(), { rebuildMenu: true });
  if (outcome.kind === 'failed') notify(outcome.title, outcome.body);
}

async function handleTrayAction(action: TrayAction): Promise<void> {
  switch (action.kind) {
    case 'selectProfile':
      await switchProfile(action.profileId);
      return;
    case 'copyText':
      clipboard.writeText(action.text);
      return;
    case 'copyClientToken': {
      const token = await runtime?.readClientToken();
      if (token) clipboard.writeText(token);
      return;
    }
    case 'setPaused':
      if (runtime && proxyStatus.status !== 'failed' && proxyStatus.status !== 'starting') {
        runtime.proxy.setPaused(action.paused);
        proxyStatus = { ...proxyStatus, status: action.paused ? 'paused' : 'serving' };
        refresh();
      }
      return;
    case 'openWindow':
      mainWindow.show(windowUrl());
      return;
    case 'setStartAtLogin':
      setStartAtLogin(action.enabled);
      return;
    case 'connectTool':
    case 'undoConnect':
      await runConnectAction(action);
      return;
    case 'quit':
      app.quit();
      return;
  }
}

/** A click has no caller to catch for it: a failure (a locked keychain on copying a token) is told, not dropped. */
async function runTrayAction(action: TrayAction): Promise<void> {
  try {
    await handleTrayAction(action);
  } catch (error) {
    notify('Airlock: that did not work', error instanceof Error ? error.message : 'unknown error');
  }
}

function followTraffic(started: DesktopRuntime): void {
  const profileOfRequest = new Map<string, string | null>();
  started.proxy.events.subscribe((event) => {
    if (event.type === 'start') profileOfRequest.set(event.requestId, event.profileId);
    if (event.type !== 'end') return;
    const profileId = profileOfRequest.get(event.requestId) ?? null;
    profileOfRequest.delete(event.requestId);
    traffic = applyFinishedRequest(
      traffic,
      { profileId, status: event.status, errorClass: event.errorClass, costCredits: event.costCredits },
      startOfLocalDayMs(Date.now()),
      started.spentSince,
    );
    refresh();
  });
  // The day also rolls over when nothing is requested.
  setInterval(() => {
    const rolled = rollDay(traffic, startOfLocalDayMs(Date.now()), started.spentSince);
    if (rolled !== traffic) {
      traffic = rolled;
      refresh();
    }
    void refreshConnectTools();
  }, 60_000).unref();
  started.config.onChange(() => {
    // A cap just changed: its alert share may have changed with it.
    readBudgets(true);
    refresh();
    void refreshConnectTools();
  });
}

async function startProxy(port: number): Promise<void> {
  try {
    const dataDir = resolveDataDir(process.env, process.platform, homedir());
    runtime = await startDesktopRuntime({
      dataDir,
      port,
      keychain: createKeychainUtilityStore(),
      resolveProxy: (url) => session.defaultSession.resolveProxy(url),
    });
    proxyStatus = { status: 'serving', port: runtime.proxy.port, origin: runtime.proxy.url };
    traffic = { ...traffic, todaySpendCredits: runtime.spentSince(traffic.dayStartMs) };
    followTraffic(runtime);
    runtime.onNoticesChange(refresh);
    await refreshConnectTools();
  } catch (error) {
    proxyStatus = { status: 'failed', port, problem: classifyStartupError(error, port) };
  }
  refresh();
}

function installTestHooks(): void {
  // Only for test/electron (Playwright evaluates in the main process); never set in a release.
  if (process.env.AIRLOCK_TEST_HOOKS !== '1') return;
  Object.assign(globalThis, {
    airlockTestHooks: {
      trayMenu: () => tray?.model() ?? [],
      clickTrayItem: async (id: string) => {
        const items = (tray?.model() ?? []).flatMap((entry) => (entry.type === 'submenu' ? [entry, ...entry.items] : [entry]));
        const item = items.find((candidate) => candidate.id === id);
        if (!item || !('action' in item)) throw new Error(`no clickable tray item ${id}`);
        await handleTrayAction(item.action);
      },
      activeProfileId: () => runtime?.config.snapshot().activeProfileId ?? null,
    },
  });
}

async function quitAfterDrain(): Promise<void> {
  const stopping = runtime;
  runtime = null;
  if (!stopping) return;
  await drainThenQuit({
    inFlightCount: () => stopping.proxy.inFlightCount(),
    stop: (drainMs) => stopping.stop(drainMs),
    tell: notify,
    quit: () => {
      tray?.destroy();
      app.quit();
    },
  });
}

/** Asked before `ready`, where Electron's docs promise nothing: a failure only means a relaunch that shows the window. */
function wasOpenedAtLogin(): boolean {
  try {
    return app.getLoginItemSettings().wasOpenedAtLogin;
  } catch {
    return false;
  }
}

const memoryRelaunch = planMemoryRelaunch({
  argv: process.argv,
  env: process.env,
  gcExposed: typeof (globalThis as { gc?: unknown }).gc === 'function',
  glibcVersion: process.platform === 'linux' ? runtimeGlibcVersion() : undefined,
  mallocEnv: GLIBC_MALLOC_ENV,
  openedAtLogin: process.platform === 'darwin' && wasOpenedAtLogin(),
  hiddenArg: HIDDEN_AT_LOGIN_ARG,
});

if (memoryRelaunch !== null) {
  // Before the single-instance lock: the new instance takes it once this one has exited.
  Object.assign(process.env, memoryRelaunch.env);
  app.relaunch({ args: memoryRelaunch.args });
  app.exit(0);
} else if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', () => mainWindow.show(windowUrl()));
  // The tray keeps the app alive: closing the last window is not quitting.
  app.on('window-all-closed', () => undefined);
  app.on('before-quit', (event) => {
    quitting = true;
    if (runtime) {
      event.preventDefault();
      void quitAfterDrain();
    }
  });
  app.on('activate', () => mainWindow.show(windowUrl()));

  void app.whenReady().then(async () => {
    hardenSession(session.defaultSession, proxyOrigin);
    registerIpcHandlers({ proxyOrigin, controlToken: () => runtime?.controlToken ?? null });
    tray = new TrayController(
      { productName: PRODUCT_NAME, iconPath: trayIconPath, onAction: (action) => void runTrayAction(action) },
      currentState(),
    );
    installTestHooks();
    let port = DEFAULT_PORT;
    try {
      port = portFromEnv(process.env.AIRLOCK_PORT, DEFAULT_PORT);
    } catch (error) {
      proxyStatus = { status: 'failed', port, problem: classifyStartupError(error, port) };
    }
    if (proxyStatus.status === 'starting') await startProxy(port);
    // wasOpenedAtLogin is macOS's; elsewhere the login entry passes the hidden flag.
    const openedAtLogin = process.argv.includes(HIDDEN_AT_LOGIN_ARG) || (process.platform === 'darwin' && wasOpenedAtLogin());
    if (!openedAtLogin || proxyStatus.status === 'failed') mainWindow.show(windowUrl());
    noticeIds = new Set();
    refresh();
  });
}
