import type { BrowserWindowConstructorOptions, WebPreferences } from 'electron';

/**
 * The main window's options. The security switches are fixed here, in one place, and a unit test
 * fails if any of them is flipped: the window shows proxy traffic and holds the control token.
 */
export interface MainWindowInput {
  preloadPath: string;
  productName: string;
  /** Off in packaged builds: devtools would let anyone with the window read the control token. */
  devToolsEnabled: boolean;
}

export function secureWebPreferences(preloadPath: string, devToolsEnabled: boolean): WebPreferences {
  return {
    preload: preloadPath,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    webviewTag: false,
    experimentalFeatures: false,
    navigateOnDragDrop: false,
    safeDialogs: true,
    devTools: devToolsEnabled,
  };
}

export function mainWindowOptions(input: MainWindowInput): BrowserWindowConstructorOptions {
  return {
    title: input.productName,
    width: 1280,
    height: 820,
    minWidth: 760,
    minHeight: 480,
    // Shown on 'ready-to-show' so the first paint is the UI, not a white flash.
    show: false,
    autoHideMenuBar: true,
    webPreferences: secureWebPreferences(input.preloadPath, input.devToolsEnabled),
  };
}
