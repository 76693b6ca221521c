import { electronModule } from './electronStandIn.ts';

/** The stand-in as the 'electron' module's named exports, for a process that imports it by name (standInHooks.ts). */
export const { app, BrowserWindow, Tray, Notification, Menu, dialog, nativeImage, clipboard, shell, ipcMain, utilityProcess, session } =
  electronModule;
