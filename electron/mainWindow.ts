import { BrowserWindow, type Session, shell } from 'electron';
import { contentSecurityPolicy, withContentSecurityPolicy } from './logic/csp.ts';
import { decideWindowClose, secondInstanceSteps, type WindowPresence } from './logic/lifecycle.ts';
import { decideNavigation, decideNewWindow } from './logic/navigation.ts';
import { mainWindowOptions } from './logic/windowOptions.ts';

export interface MainWindowDeps {
  preloadPath: string;
  productName: string;
  devToolsEnabled: boolean;
  proxyOrigin(): string | null;
  externalOrigins(): readonly string[];
  appIsQuitting(): boolean;
}

/**
 * The session-wide guards, installed once: our CSP on every response, every permission request
 * denied (the UI needs none: no camera, notifications come from the main process).
 */
export function hardenSession(session: Session, proxyOrigin: () => string | null): void {
  session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
  session.webRequest.onHeadersReceived((details, callback) => {
    const origin = proxyOrigin();
    if (origin === null) {
      callback({ cancel: true });
      return;
    }
    callback({ responseHeaders: withContentSecurityPolicy(details.responseHeaders, contentSecurityPolicy({ proxyOrigin: origin })) });
  });
}

/** One window, created on demand, hidden (not destroyed) on close so the proxy keeps serving. */
export class MainWindow {
  readonly #deps: MainWindowDeps;
  #window: BrowserWindow | null = null;
  /** Created and loading: it shows itself once ready, so it counts as shown already. */
  #showingOnReady = false;

  constructor(deps: MainWindowDeps) {
    this.#deps = deps;
  }

  /** Shows the window (creating it if needed) with the given URL loaded. */
  show(url: string): void {
    const window = this.#window ?? this.#create(url);
    if (window.webContents.getURL() !== url && !window.webContents.isLoading()) void window.loadURL(url);
    this.#bringForward();
  }

  /** On screen: not closed (hidden), minimized or never opened. */
  isShown(): boolean {
    return this.#showingOnReady || this.#presence() === 'visible';
  }

  #bringForward(): void {
    const window = this.#window;
    if (!window) return;
    for (const step of secondInstanceSteps(this.#presence())) {
      if (step === 'restore') window.restore();
      if (step === 'show') window.show();
      if (step === 'focus') window.focus();
    }
  }

  #presence(): WindowPresence {
    const window = this.#window;
    if (!window) return 'none';
    if (window.isMinimized()) return 'minimized';
    return window.isVisible() ? 'visible' : 'hidden';
  }

  #create(url: string): BrowserWindow {
    const window = new BrowserWindow(mainWindowOptions(this.#deps));
    const contents = window.webContents;
    const openIfAllowed = (decision: { openExternally: boolean }, target: string) => {
      if (decision.openExternally) void shell.openExternal(target);
    };
    contents.setWindowOpenHandler(({ url: target }) => {
      openIfAllowed(decideNewWindow(target, this.#deps.externalOrigins()), target);
      return { action: 'deny' };
    });
    const guardNavigation = (event: Electron.Event, target: string) => {
      const origin = this.#deps.proxyOrigin();
      const decision =
        origin === null
          ? { action: 'deny' as const, openExternally: false }
          : decideNavigation(target, origin, this.#deps.externalOrigins());
      if (decision.action === 'deny') {
        event.preventDefault();
        openIfAllowed(decision, target);
      }
    };
    contents.on('will-navigate', (event) => guardNavigation(event, event.url));
    contents.on('will-redirect', (event) => guardNavigation(event, event.url));
    contents.on('will-attach-webview', (event) => event.preventDefault());
    this.#showingOnReady = true;
    window.once('ready-to-show', () => {
      this.#showingOnReady = false;
      window.show();
    });
    window.on('close', (event) => {
      if (decideWindowClose(this.#deps.appIsQuitting()) === 'hide') {
        event.preventDefault();
        window.hide();
      }
    });
    window.on('closed', () => {
      this.#window = null;
      this.#showingOnReady = false;
    });
    void window.loadURL(url);
    this.#window = window;
    return window;
  }
}
