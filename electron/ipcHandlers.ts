import { clipboard, ipcMain, shell } from 'electron';
import { guardIpcHandler, validateClipboardText } from './logic/ipcGuard.ts';
import { isAllowedExternalUrl } from './logic/navigation.ts';
import { IPC_CHANNELS } from './ipcChannels.ts';

export interface IpcHandlerDeps {
  /** The proxy origin once it serves, else null (then every call is refused). */
  proxyOrigin(): string | null;
  controlToken(): string | null;
  appVersion: string;
  externalOrigins(): readonly string[];
}

/** Registers the preload's four functions; each checks its sender before anything else. */
export function registerIpcHandlers(deps: IpcHandlerDeps): void {
  const guarded = <Args extends unknown[], Result>(handler: (event: Electron.IpcMainInvokeEvent, ...args: Args) => Result) =>
    guardIpcHandler<Electron.IpcMainInvokeEvent, Args, Result>(deps.proxyOrigin, handler);

  ipcMain.handle(
    IPC_CHANNELS.getControlToken,
    guarded(() => {
      const token = deps.controlToken();
      if (token === null) throw new Error('the proxy is not running, so there is no control token yet');
      return token;
    }),
  );
  ipcMain.handle(IPC_CHANNELS.getAppVersion, guarded(() => deps.appVersion));
  ipcMain.handle(
    IPC_CHANNELS.copyToClipboard,
    guarded((_event, text: unknown) => {
      clipboard.writeText(validateClipboardText(text));
    }),
  );
  ipcMain.handle(
    IPC_CHANNELS.openExternal,
    guarded(async (_event, url: unknown) => {
      if (typeof url !== 'string' || !isAllowedExternalUrl(url, deps.externalOrigins())) return false;
      await shell.openExternal(url);
      return true;
    }),
  );
}
