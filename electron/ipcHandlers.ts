import { ipcMain } from 'electron';
import { guardIpcHandler } from './logic/ipcGuard.ts';
import { IPC_CHANNELS } from './ipcChannels.ts';

export interface IpcHandlerDeps {
  /** The proxy origin once it serves, else null (then every call is refused). */
  proxyOrigin(): string | null;
  controlToken(): string | null;
}

/** Registers the preload's function; it checks its sender before anything else. */
export function registerIpcHandlers(deps: IpcHandlerDeps): void {
  ipcMain.handle(
    IPC_CHANNELS.getControlToken,
    guardIpcHandler<Electron.IpcMainInvokeEvent, [], string>(deps.proxyOrigin, () => {
      const token = deps.controlToken();
      if (token === null) throw new Error('the proxy is not running, so there is no control token yet');
      return token;
    }),
  );
}
