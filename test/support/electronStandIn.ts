import { EventEmitter } from 'node:events';
import { fileURLToPath } from 'node:url';
import { utilityProcessStandIn } from './utilityProcessStandIn.ts';

/**
 * A recording stand-in for the parts of Electron's main-process API that electron/main.ts uses,
 * so the real main.ts runs in Node (the Electron binary cannot be had on every machine). It
 * behaves like Electron where main.ts depends on it: app events in Electron's order (a prevented
 * before-quit stops the quit; windows get close, then closed), menus built from templates whose
 * click handlers run as a click in the tray would, windows that emit ready-to-show after loading,
 * utility processes that are real child processes (utilityProcessStandIn.ts). Everything a user
 * would see (tray menus, tooltips, notifications, windows) is recorded, and so are utility
 * processes' starts, ends and kills.
 */

export interface MenuTemplateItem {
  id?: string;
  type?: string;
  label?: string;
  checked?: boolean;
  enabled?: boolean;
  click?: () => void;
}

interface ElectronLikeEvent {
  defaultPrevented: boolean;
  preventDefault(): void;
}

function preventableEvent(): ElectronLikeEvent {
  return {
    defaultPrevented: false,
    preventDefault() {
      this.defaultPrevented = true;
    },
  };
}

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

export const recorder = {
  /** What happened, in order: "window:load <url>", "tray:destroy", "app:exit"… */
  events: [] as string[],
  trayMenus: [] as MenuTemplateItem[][],
  trayTooltips: [] as string[],
  notifications: [] as { title: string; body: string }[],
  /** Message boxes shown, with the button index the "user" clicked. */
  dialogs: [] as { message: string; detail: string; buttons: string[]; response: number }[],
  /** The button the next message boxes answer with; the dialog's cancelId when null. */
  dialogResponse: null as number | null,
  clipboard: '',
  record(event: string): void {
    this.events.push(event);
  },
  latestTrayMenu(): MenuTemplateItem[] {
    return this.trayMenus.at(-1) ?? [];
  },
};

class FakeWebContents extends EventEmitter {
  url = '';
  getURL(): string {
    return this.url;
  }
  isLoading(): boolean {
    return false;
  }
  setWindowOpenHandler(): void {}
}

class FakeBrowserWindow extends EventEmitter {
  static readonly all: FakeBrowserWindow[] = [];
  readonly webContents = new FakeWebContents();
  visible = false;
  destroyed = false;
  readonly options: unknown;

  constructor(options: unknown) {
    super();
    this.options = options;
    FakeBrowserWindow.all.push(this);
    recorder.record('window:create');
  }

  static getAllWindows(): FakeBrowserWindow[] {
    return FakeBrowserWindow.all.filter((window) => !window.destroyed);
  }

  async loadURL(url: string): Promise<void> {
    this.webContents.url = url;
    recorder.record(`window:load ${url}`);
    // As Electron: the page paints after the load is asked for, then the window may be shown.
    setImmediate(() => this.emit('ready-to-show'));
  }
  show(): void {
    this.visible = true;
    recorder.record('window:show');
  }
  hide(): void {
    this.visible = false;
    recorder.record('window:hide');
  }
  restore(): void {}
  focus(): void {}
  isMinimized(): boolean {
    return false;
  }
  isVisible(): boolean {
    return this.visible;
  }
  /** As Electron: `close` may be prevented (main.ts hides instead); otherwise the window is gone. */
  close(): boolean {
    const event = preventableEvent();
    this.emit('close', event);
    if (event.defaultPrevented) return false;
    this.destroyed = true;
    this.visible = false;
    recorder.record('window:closed');
    this.emit('closed');
    return true;
  }
}

class FakeApp extends EventEmitter {
  readonly isPackaged = false;
  exited = false;
  ready = false;
  /**
   * Electron ends the process where the stand-in records `app:exit`; a test that runs main.ts in a
   * process of its own sets this to process.exit, so that exit is real.
   */
  endProcess: ((code: number) => void) | null = null;
  getName(): string {
    return 'Airlock';
  }
  getAppPath(): string {
    return repoRoot;
  }
  requestSingleInstanceLock(): boolean {
    return true;
  }
  whenReady(): Promise<void> {
    this.ready = true;
    return Promise.resolve();
  }
  isReady(): boolean {
    return this.ready;
  }
  setLoginItemSettings(settings: unknown): void {
    recorder.record(`app:login-item ${JSON.stringify(settings)}`);
  }
  getLoginItemSettings(): { openAtLogin: boolean; wasOpenedAtLogin: boolean } {
    return { openAtLogin: false, wasOpenedAtLogin: false };
  }
  /** Recorded with its options; as Electron, the new instance starts only once this one exits. */
  relaunch(options: { args?: string[] } = {}): void {
    recorder.record(`app:relaunch ${JSON.stringify(options)}`);
  }
  /** As Electron: ends the process at once, without before-quit or closing windows. */
  exit(code = 0): void {
    this.exited = true;
    recorder.record(`app:exit ${code}`);
    this.endProcess?.(code);
  }
  /** Electron's order: before-quit (preventable), every window closed, will-quit, quit; then the process ends. */
  quit(): void {
    const beforeQuit = preventableEvent();
    this.emit('before-quit', beforeQuit);
    if (beforeQuit.defaultPrevented) {
      recorder.record('app:quit-deferred');
      return;
    }
    for (const window of FakeBrowserWindow.getAllWindows()) if (!window.close()) return;
    this.emit('will-quit', preventableEvent());
    this.emit('quit');
    this.exited = true;
    recorder.record('app:exit');
    this.endProcess?.(0);
  }
}

class FakeTray {
  constructor(image: { path: string }) {
    recorder.record(`tray:create ${image.path}`);
  }
  setImage(image: { path: string }): void {
    recorder.record(`tray:icon ${image.path}`);
  }
  setToolTip(text: string): void {
    recorder.trayTooltips.push(text);
  }
  setContextMenu(menu: { items: MenuTemplateItem[] }): void {
    recorder.trayMenus.push(menu.items);
  }
  destroy(): void {
    recorder.record('tray:destroy');
  }
}

class FakeNotification {
  readonly options: { title: string; body: string };
  constructor(options: { title: string; body: string }) {
    this.options = options;
  }
  static isSupported(): boolean {
    return true;
  }
  show(): void {
    recorder.notifications.push({ title: this.options.title, body: this.options.body });
    recorder.record(`notification:${this.options.title}`);
  }
}

/** As Electron: a click on a radio item moves the mark to it before its click handler runs. */
function buildMenu(template: MenuTemplateItem[]): { items: MenuTemplateItem[] } {
  const items = template.map((entry) => ({ ...entry }));
  for (const entry of items) {
    if (entry.type !== 'radio') continue;
    const handler = entry.click;
    entry.click = () => {
      for (const other of items) if (other.type === 'radio') other.checked = other === entry;
      handler?.();
    };
  }
  return { items };
}

interface MessageBoxOptions {
  message: string;
  detail?: string;
  buttons?: string[];
  cancelId?: number;
}

export const app = new FakeApp();

export const electronModule = {
  app,
  BrowserWindow: FakeBrowserWindow,
  Tray: FakeTray,
  Notification: FakeNotification,
  Menu: { buildFromTemplate: buildMenu },
  dialog: {
    showMessageBox: async (options: MessageBoxOptions) => {
      const response = recorder.dialogResponse ?? options.cancelId ?? 0;
      recorder.dialogs.push({ message: options.message, detail: options.detail ?? '', buttons: options.buttons ?? [], response });
      recorder.record(`dialog:${options.message}`);
      return { response, checkboxChecked: false };
    },
  },
  nativeImage: { createFromPath: (path: string) => ({ path }) },
  clipboard: {
    writeText: (text: string) => {
      recorder.clipboard = text;
    },
  },
  shell: {
    openExternal: async (url: string) => {
      recorder.record(`shell:open ${url}`);
    },
  },
  ipcMain: { handle: (channel: string) => recorder.record(`ipc:handle ${channel}`) },
  utilityProcess: utilityProcessStandIn(
    (event) => recorder.record(event),
    () => app.isReady(),
  ),
  session: {
    defaultSession: {
      // The OS settings' proxy for a URL, as Chromium answers without any (electron/logic/systemProxy.ts).
      resolveProxy: async () => 'DIRECT',
      setPermissionRequestHandler: () => undefined,
      setPermissionCheckHandler: () => undefined,
      webRequest: { onHeadersReceived: () => undefined },
    },
  },
};
